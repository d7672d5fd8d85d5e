import AudioSessionDaemon
import AudioSessionProtocol
import AudioSessionConfiguration
import AudioSessionTestSupport
import Foundation
import Logging
import Locking

@testable import AudioSessionCLI

/// A daemon in this process without a sound server, on the buses a test gives it, whose log lines the test
/// reads (the platform's trouble is logged once: tests count the lines).
struct PlatformDaemon: Sendable {
    let socketPath: String
    let log: LogLines

    static func with<Result: Sendable>(
        buses: PlatformBuses,
        platform: PlatformSettings = .standard,
        _ body: (PlatformDaemon) async throws -> Result
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.path + "/platform-\(UUID().uuidString.prefix(8))"
        let path = directory + "/control"
        let lines = LogLines()
        let logger = Logger(label: "audiosessiond-test") { _ in LogLines.Handler(lines: lines) }
        var configuration = DaemonConfiguration.standard
        configuration.platform = platform
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let daemon = Task { [logger, configuration] in
            defer { readyContinuation.finish() }
            try await Daemon.run(
                DaemonOptions(
                    socketPath: path,
                    configuration: configuration,
                    soundServer: false,
                    onReady: { readyContinuation.yield() },
                    buses: buses
                ),
                logger: logger
            )
        }
        for await _ in ready { break }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(PlatformDaemon(socketPath: path, log: lines)))
        } catch {
            result = .failure(error)
        }
        daemon.cancel()
        _ = await daemon.result
        return try result.get()
    }

    /// The daemon's status, read on a connection of its own, on a thread of its own.
    func status() async throws -> StatusBody { try await onThread { try self.status() } }

    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func status() throws -> StatusBody { try ControlConnection(path: socketPath, readTimeout: .seconds(60)).status() }

    /// Runs `audiosessionctl ARGUMENTS --socket PATH` in this process.
    func ctl(_ arguments: [String]) async throws -> CtlResult {
        let socketPath = socketPath
        return try await onThread {
            var output = ""
            var errors = ""
            let status = AudioSessionCtl.execute(
                arguments + ["--socket", socketPath],
                output: &output,
                errors: &errors
            )
            return CtlResult(status: status, output: output, errors: errors)
        }
    }

    /// Waits until the status satisfies `condition` (a safety limit of 20 s).
    func waitForStatus(_ what: String, _ condition: @escaping @Sendable (StatusBody) -> Bool) async throws {
        try await eventually(what, within: 20) { [self] in condition(try await status()) }
    }
}

/// The log lines of a daemon in this process.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func count(containing text: String) -> Int { all.filter { $0.contains(text) }.count }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }
}
