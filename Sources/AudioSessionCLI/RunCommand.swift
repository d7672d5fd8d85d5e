import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

/// `audiosessionctl run --category C [--mode M] [--option O...] [--app NAME] -- COMMAND [ARGS...]`: runs a
/// program that knows nothing of audio sessions inside one, so the policy treats it as an aware app.
struct RunCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program inside an audio session of the given category.",
        discussion: """
            Declares the session (hello, setCategory, activate), then runs the program with PULSE_PROP set so its \
            PulseAudio streams carry audiosession.id. Interruptions and route changes are printed to standard \
            error meanwhile. When the program ends the session is deactivated with notifyOthers, and the tool \
            exits with the program's status. SIGINT and SIGTERM sent to the tool are passed on to the program.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The session's category.")
    var category: AudioSessionPolicy.Category

    @Option(help: "The session's mode.")
    var mode: Mode = .default

    @Option(name: .customLong("option"), help: "A category option; repeat for several.")
    var options: [CategoryOptionArgument] = []

    @Option(help: "The app's name (default: the program's file name).")
    var app: String?

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("The program and its arguments, after --.", valueName: "command")
    )
    var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("name the program to run after --") }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let daemon = try connection.connect()
        var hello = Request(op: .hello)
        hello.app = app ?? (command[0] as NSString).lastPathComponent
        guard let session = try daemon.result(hello).session else {
            throw CLIError("the daemon's reply to hello has no session number in it")
        }
        var declaration = Request(op: .setCategory)
        declaration.category = category
        declaration.mode = mode
        declaration.options = options.reduce(into: CategoryOptions()) { $0.insert($1.option) }
        _ = try daemon.result(declaration)
        _ = try daemon.result(Request(op: .activate))
        _ = try daemon.result(Request(op: .subscribe))

        var environment = ProcessInfo.processInfo.environment
        let property = "audiosession.id=\(session)"
        environment["PULSE_PROP"] =
            environment["PULSE_PROP"].map { $0.isEmpty ? property : "\($0) \(property)" } ?? property
        fflush(nil)
        let status = SignalTrap.catching([SIGINT, SIGTERM, SIGCHLD]) {
            let child: SpawnedProgram
            do {
                child = try SpawnedProgram(command, environment: environment, capture: !output.isStandardOutput)
            } catch {
                print("audiosessionctl: \(error)", to: &errors)
                return Int32(127)
            }
            SignalTrap.forward(to: child.pid)
            var listening = true
            while true {
                if let status = child.exitStatus() {
                    let captured = child.takeCapturedOutput()
                    output.write(captured.output)
                    errors.write(captured.errors)
                    return status
                }
                guard listening else {
                    poll(nil, 0, 200)  // a SIGCHLD cuts it short
                    continue
                }
                do {
                    if let event = try daemon.nextEvent(timeout: .milliseconds(200)) {
                        print("audiosessionctl: \(EventText.describe(event))", to: &errors)
                    }
                } catch {
                    print("audiosessionctl: \(error)", to: &errors)
                    listening = false
                }
            }
        }
        // After the program, so that whoever it interrupted may resume (POLICY D3); a stream the sound server
        // has not yet seen go makes this isBusy, which still took effect.
        var deactivation = Request(op: .deactivate)
        deactivation.notifyOthers = true
        if let reply = try? daemon.call(deactivation), let error = reply.error, error.tookEffect != true {
            print("audiosessionctl: deactivate: \(error.code): \(error.message)", to: &errors)
        }
        return status
    }
}
