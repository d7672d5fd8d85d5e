import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

/// `audiosessionctl run --category C [--mode M] [--option O...] [--app NAME] [-q] -- COMMAND [ARGS...]`: runs a
/// program that knows nothing of audio sessions inside one, so the policy treats it as an aware app.
struct RunCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program inside an audio session of the given category.",
        discussion: """
            Declares the session (hello, setCategory, activate), then runs the program with PULSE_PROP set so its \
            PulseAudio streams carry audiosession.id. On standard error, so that the program's own output stays \
            clean, it says which session it made (`run: session 7 (playback/default) for paplay`) and then each \
            change of the session's state or output as it happens, one line each (`run: interrupted by phone \
            (A6)`, `run: ducked to 0.25`, `run: audible`, `run: route headphones`); --quiet leaves them out. \
            When the program ends the session is deactivated with notifyOthers. SIGINT and SIGTERM sent to the \
            tool are passed on to the program.

            Exit status: the program's own (128 + N when signal N ended it); 126 when it cannot be started, 127 \
            when it is not found; before it starts, the tool's own: 1 when the daemon refuses the session, 2 for \
            bad usage, 3 when the daemon cannot be reached.
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

    @Flag(name: .shortAndLong, help: "Say nothing about the session on standard error (errors are still printed).")
    var quiet = false

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
        let hello = Request(.hello(app: app ?? (command[0] as NSString).lastPathComponent))
        guard let session = try daemon.result(hello).session else {
            throw CLIError("the daemon's reply to hello has no session number in it")
        }
        let options = options.reduce(into: CategoryOptions()) { $0.insert($1.option) }
        _ = try daemon.result(Request(.setCategory(category, mode: mode, options: options)))
        _ = try daemon.result(Request(.activate))
        // The session's changes come from the daemon's status (`watch`), which has its output and gain too; a
        // user the daemon does not let watch (a socket opened to others) gets the session's notifications.
        var report = RunReport(session: session)
        if let status = try? daemon.result(Request(.watch)).status {
            _ = report.lines(for: status)
        } else {
            _ = try daemon.result(Request(.subscribe))
        }
        func say(_ line: String) {
            if !quiet { print("run: \(line)", to: &errors) }
        }
        say("session \(session) (\(category.rawValue)/\(mode.rawValue)) for \(command[0])")

        var environment = ProcessInfo.processInfo.environment
        let property = "audiosession.id=\(session)"
        environment["PULSE_PROP"] =
            environment["PULSE_PROP"].map { $0.isEmpty ? property : "\($0) \(property)" } ?? property
        fflush(nil)
        let status = SignalTrap.catching([SIGINT, SIGTERM, SIGCHLD]) {
            let child: SpawnedProgram
            do {
                child = try SpawnedProgram(command, environment: environment, capture: !output.isStandardOutput)
            } catch let failure as SpawnFailure {
                print(AudioSessionCtl.errorLine(failure), to: &errors)
                return failure.exitStatus
            } catch {
                print(AudioSessionCtl.errorLine(error), to: &errors)
                return ExitStatus.failure.rawValue
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
                    // A SIGCHLD cuts the wait short too.
                    guard let event = try daemon.nextEvent(timeout: .milliseconds(200)) else { continue }
                    if event.event == .status, let status = event.status {
                        report.lines(for: status).forEach(say)
                    } else if event.event != .status {
                        say(EventText.describe(event))
                    }
                } catch {
                    print(
                        AudioSessionCtl.errorLine(error) + "; the program runs on without its session's changes",
                        to: &errors
                    )
                    listening = false
                }
            }
        }
        // After the program, so that whoever it interrupted may resume (POLICY D3); a stream the sound server
        // has not yet seen go makes this isBusy, which still took effect.
        if let reply = try? daemon.call(Request(.deactivate(notifyOthers: true))), let error = reply.error, error.tookEffect != true {
            print("audiosessionctl: deactivate: \(error.code): \(error.message)", to: &errors)
        }
        return status
    }
}
