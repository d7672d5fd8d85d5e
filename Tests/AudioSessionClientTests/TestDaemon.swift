import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Locking

@testable import AudioSessionCLI

/// The built `audiosessiond` without a sound server, as a process of its own on a socket in a fresh folder,
/// that a test can stop and start again on the same path (a daemon restart, as the library sees it).
///
/// A process, not a daemon in the test process: that process's cooperative pool stalls for many seconds at a
/// run's start (docs/TESTING.md, "Waiting"), and a daemon on it answered the library after the library's own
/// 10 s reply limit, an app's setting, which the tests must not change.
final class TestDaemon: Sendable {
    let socketPath: String
    private let directory: String
    private let running = Locked<Process?>(nil)
    private let starts = Locked(0)

    static var daemonPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("audiosessiond").path
    }

    /// The sound server the daemon enforces on (`PULSE_SERVER`); nil: none (`--no-sound-server`).
    private let pulseServer: String?

    private init(pulseServer: String?) {
        directory = FileManager.default.temporaryDirectory.path + "/client-\(UUID().uuidString.prefix(8))"
        socketPath = directory + "/control"
        self.pulseServer = pulseServer
    }

    /// Starts a daemon (on `pulseServer`, or with no sound server), runs `body`, and stops it, whatever `body` does.
    static func with<Result: Sendable>(
        pulseServer: String? = nil,
        _ body: (TestDaemon) async throws -> Result
    ) async throws -> Result {
        let daemon = TestDaemon(pulseServer: pulseServer)
        try FileManager.default.createDirectory(atPath: daemon.directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        do {
            try await daemon.start()
            let result = try await body(daemon)
            await daemon.stop()
            return result
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// Starts the daemon and waits until it accepts a connection (its socket file is there from `bind()`, a
    /// moment before it listens); each start logs to a file of its own, named in a failure.
    func start() async throws {
        await stop()
        guard FileManager.default.isExecutableFile(atPath: Self.daemonPath) else {
            throw DaemonTestError("no daemon binary at \(Self.daemonPath): build every product first (`swift build`)")
        }
        let log = directory + "/daemon-\(starts.withLock { $0 += 1; return $0 }).log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.daemonPath)
        let soundServer = pulseServer.map { ["--pulse-server", $0] } ?? ["--no-sound-server"]
        process.arguments =
            soundServer + [
                "--no-alsa", "--socket", socketPath, "--state-dir", directory + "/state",
                "--session-bus", "none", "--system-bus", "none", "--log-level", "warning",
            ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try ChildProcess.newFile(log)
        try ChildProcess.launch(process)
        running.withLock { $0 = process }
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? LineSocket(path: socketPath)) == nil {
            let reason = !process.isRunning ? "it exited" : ContinuousClock.now > deadline ? "60 s passed" : nil
            if let reason {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw DaemonTestError("audiosessiond did not accept a connection on \(socketPath): \(reason); it logged: \(said)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the daemon (SIGTERM, as a service manager does): its connections close, as when the process dies.
    func stop() async {
        guard let process = running.withLock({ $0.take() }) else { return }
        await stopProcess(process)
    }

    /// The daemon's status, read on a control connection of its own, on a thread of its own.
    func status() async throws -> StatusBody { try await onThread { try self.status() } }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks a thread of the pool the whole test process shares until the daemon answers: await the async one")
    func status() throws -> StatusBody {
        try ControlConnection(path: socketPath, readTimeout: .seconds(60)).result(Request(.status)).status!
    }

    /// Sends one control request, such as `connectPort`, on a thread of its own.
    func control(_ command: Command) async throws {
        try await onThread { try self.control(command) }
    }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks a thread of the pool the whole test process shares until the daemon answers: await the async one")
    func control(_ command: Command) throws {
        _ = try ControlConnection(path: socketPath, readTimeout: .seconds(60)).result(Request(command))
    }
}

/// The first `count` elements of `sequence`, or fewer if `seconds` pass first (a safety limit: a suite start on
/// this 2-core machine has stalled the whole test process for over 20 s, and a lost connection was told late).
func first<Element: Sendable>(_ count: Int, of sequence: AsyncStream<Element>, within seconds: Double = 60) async
    -> [Element]
{
    let collected = Collected<Element>()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await element in sequence {
                let done = collected.elements.withLock {
                    $0.append(element); return $0.count >= count
                }
                if done { return }
            }
        }
        group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
        await group.next()
        group.cancelAll()
    }
    return collected.elements.withLock { $0 }
}

/// Values several tasks or threads add to and read.
final class Collected<Element: Sendable>: Sendable {
    let elements = Locked<[Element]>([])
    func append(_ element: Element) { elements.withLock { $0.append(element) } }
    var values: [Element] { elements.withLock { $0 } }
}

/// Polls `condition` (blocking: inside `onThread`) until it holds or `seconds` pass.
@available(*, noasync, message: "it blocks its thread while it polls: await the async one")
func eventually(seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return false
}

/// Why a test could not set up its daemon.
struct DaemonTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
