import Foundation
import Synchronization

/// A private, headless PulseAudio server for one test, started as SOUND-SERVERS.md says: its own directory, null
/// sink `speaker`, null source `mic`, a native socket at DIR/native. Its HOME is inside DIR too, so
/// module-stream-restore's database and the cookie never touch the user's.
final class PrivatePulseServer: Sendable {
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The temporary directory holding everything of this server.
    let directory: URL
    /// The libpulse server string, `unix:DIR/native`.
    let server: String
    private let process: ChildProcess
    private let stopped = Mutex(false)

    private init(directory: URL, server: String, process: ChildProcess) {
        self.directory = directory
        self.server = server
        self.process = process
    }

    /// Starts a server, with module-stream-restore when `streamRestore`, and waits until `pactl info` answers.
    /// - Throws: `StartFailure` naming what is missing or the log's tail; never skips.
    static func start(streamRestore: Bool = false) async throws -> PrivatePulseServer {
        guard let pulseaudio = executable("pulseaudio"), let pactl = executable("pactl") else {
            throw StartFailure(
                description: "pulseaudio or pactl is not installed: PulseBackendTests need a real server "
                    + "(Debian: apt-get install pulseaudio pulseaudio-utils)"
            )
        }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("pulse-test-\(UUID().uuidString.prefix(8))")
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory.appendingPathComponent("rt"), withIntermediateDirectories: true)
        try fileManager.setAttributes(
            [.posixPermissions: 0o700],
            ofItemAtPath: directory.appendingPathComponent("rt").path
        )
        try fileManager.createDirectory(at: directory.appendingPathComponent("home"), withIntermediateDirectories: true)
        let dir = directory.path
        var script = """
            load-module module-null-sink sink_name=speaker sink_properties=device.description=Speaker
            load-module module-null-source source_name=mic

            """
        if streamRestore { script += "load-module module-stream-restore\n" }
        script += """
            load-module module-native-protocol-unix auth-anonymous=1 socket=\(dir)/native
            set-default-sink speaker

            """
        try script.write(toFile: "\(dir)/pa.pa", atomically: true, encoding: .utf8)

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = "\(dir)/rt"
        environment["HOME"] = "\(dir)/home"
        environment["XDG_CONFIG_HOME"] = "\(dir)/home/.config"
        environment["PULSE_SERVER"] = nil
        let process = try ChildProcess.spawn(
            pulseaudio,
            [
                "-n", "-F", "\(dir)/pa.pa", "--daemonize=no", "--exit-idle-time=-1", "--system=false",
                "--log-target=file:\(dir)/pa.log",
            ],
            environment: environment
        )

        let server = PrivatePulseServer(directory: directory, server: "unix:\(dir)/native", process: process)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if !process.isRunning { break }
            var pactlEnvironment = ProcessInfo.processInfo.environment
            pactlEnvironment["PULSE_SERVER"] = server.server
            let info = try ChildProcess.spawn(pactl, ["info"], environment: pactlEnvironment)
            if await info.waitForExit(timeout: .seconds(5)) && info.succeeded { return server }
            info.send(SIGKILL)
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = server.logTail()
        server.stop()
        throw StartFailure(description: "the private pulseaudio did not answer `pactl info` within 20 s; log:\n\(log)")
    }

    /// The last lines of the server's log.
    func logTail(lines: Int = 20) -> String {
        let log = (try? String(contentsOfFile: directory.appendingPathComponent("pa.log").path, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Stops the process for good (SIGKILL), as a crash would.
    func kill() {
        process.send(SIGKILL)
        process.waitForExitBlocking(timeout: .seconds(5))
    }

    /// Freezes the process (SIGSTOP): requests then stay pending.
    func freeze() {
        process.send(SIGSTOP)
    }

    /// Kills the server (SIGKILL: nothing of it is kept, and it exits at once) and removes its directory. Idempotent.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }

    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Runs `body` with a fresh private server, stopping it afterwards whatever happens.
func withPrivatePulseServer<Result>(
    streamRestore: Bool = false,
    _ body: (PrivatePulseServer) async throws -> Result
) async throws -> Result {
    let server = try await PrivatePulseServer.start(streamRestore: streamRestore)
    defer { server.stop() }
    return try await body(server)
}
