import AudioSessionDaemon
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Logging
import Locking

@testable import AudioSessionCLI

/// A daemon in this process without a sound server, on a socket of its own, that a test can stop and start
/// again on the same path (a daemon restart, as the library sees it).
final class TestDaemon: Sendable {
    let socketPath: String
    private let directory: String
    private let running = Locked<Task<Void, any Error>?>(nil)

    private init() {
        directory = FileManager.default.temporaryDirectory.path + "/client-\(UUID().uuidString.prefix(8))"
        socketPath = directory + "/control"
    }

    /// Starts a daemon, runs `body`, and stops it, whatever `body` does.
    static func with<Result: Sendable>(_ body: (TestDaemon) async throws -> Result) async throws -> Result {
        let daemon = TestDaemon()
        await daemon.start()
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        do {
            let result = try await body(daemon)
            await daemon.stop()
            return result
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// Starts the daemon and waits until it listens.
    func start() async {
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        var logger = Logger(label: "audiosessiond-client-test")
        logger.logLevel = .warning
        let path = socketPath
        let task = Task { [logger] in
            defer { readyContinuation.finish() }
            try await Daemon.run(
                DaemonOptions(socketPath: path, soundServer: false, onReady: { readyContinuation.yield() }),
                logger: logger
            )
        }
        running.withLock { $0 = task }
        for await _ in ready { break }
    }

    /// Stops the daemon: its connections close, as when the process dies.
    func stop() async {
        guard let task = running.withLock({ $0.take() }) else { return }
        task.cancel()
        _ = await task.result
    }

    /// The daemon's status, read on a control connection of its own, on a thread of its own.
    func status() async throws -> StatusBody { try await onThread { try self.status() } }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func status() throws -> StatusBody {
        try ControlConnection(path: socketPath, readTimeout: .seconds(60)).result(Request(.status)).status!
    }

    /// Sends one control request, such as `connectPort`, on a thread of its own.
    func control(_ command: Command) async throws {
        try await onThread { try self.control(command) }
    }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
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
