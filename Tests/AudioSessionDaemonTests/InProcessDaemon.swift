import AudioSessionDaemon
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Logging
import Locking

@testable import AudioSessionCLI

/// A daemon in this process, without a sound server, on a socket of its own; the tool's commands and plain
/// clients talk to it from threads of their own.
struct InProcessDaemon: Sendable {
    let socketPath: String

    /// Starts a daemon, waits until it listens, runs `body`, and stops it.
    static func with<Result: Sendable>(_ body: (InProcessDaemon) async throws -> Result) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.path + "/ctl-\(UUID().uuidString.prefix(8))"
        let path = directory + "/control"
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        var logger = Logger(label: "audiosessiond-test")
        logger.logLevel = .warning
        let daemon = Task { [logger] in
            defer { readyContinuation.finish() }
            try await Daemon.run(
                DaemonOptions(socketPath: path, soundServer: false, onReady: { readyContinuation.yield() }),
                logger: logger
            )
        }
        for await _ in ready { break }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let result = try await body(InProcessDaemon(socketPath: path))
            daemon.cancel()
            _ = await daemon.result
            return result
        } catch {
            daemon.cancel()
            _ = await daemon.result
            throw error
        }
    }

    /// Runs `audiosessionctl ARGUMENTS --socket PATH` in this process, on a thread of its own.
    func ctl(_ arguments: [String]) async throws -> CtlResult {
        try await onThread { self.ctl(arguments) }
    }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func ctl(_ arguments: [String]) -> CtlResult {
        var output = ""
        var errors = ""
        let status = ctl(arguments, output: &output, errors: &errors)
        return CtlResult(status: status, output: output, errors: errors)
    }

    /// The same, with output to any stream.
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func ctl(_ arguments: [String], output: inout some TextOutputStream, errors: inout some TextOutputStream) -> Int32 {
        var arguments = arguments
        arguments.insert(
            contentsOf: ["--socket", socketPath],
            at: arguments.firstIndex(of: "--") ?? arguments.endIndex
        )
        return AudioSessionCtl.execute(arguments, output: &output, errors: &errors)
    }

    /// A client with its session: `hello` as `app`, `setCategory`, and `activate` unless told not to (blocking:
    /// inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func client(
        _ app: String,
        _ category: AudioSessionPolicy.Category,
        options: CategoryOptions = [],
        activate: Bool = true
    )
        throws -> ControlConnection
    {
        let connection = try ControlConnection(path: socketPath, readTimeout: .seconds(60))
        let hello = Request(.hello(app: app))
        _ = try connection.result(hello)
        let declaration = Request(.setCategory(category, options: options))
        _ = try connection.result(declaration)
        if activate { _ = try connection.result(Request(.activate)) }
        return connection
    }

    /// The daemon's status, read on a connection of its own, on a thread of its own.
    func status() async throws -> StatusBody { try await onThread { try self.status() } }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func status() throws -> StatusBody { try ControlConnection(path: socketPath, readTimeout: .seconds(60)).status() }

    /// Waits (up to `seconds`) until the status satisfies `condition`; false if it never did.
    func waitForStatus(seconds: Double = 60, _ condition: @escaping @Sendable (StatusBody) -> Bool) async throws -> Bool {
        try await onThread { try self.waitForStatus(seconds: seconds, condition) }
    }

    /// The same, blocking (inside `onThread`).
    @available(*, noasync, message: "it blocks until the daemon in this process answers, which needs the pool this would hold: await the async one")
    func waitForStatus(seconds: Double = 60, _ condition: (StatusBody) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(try status()) { return true }
            usleep(20_000)
        }
        return false
    }
}

/// What one run of the tool printed, and how it ended.
struct CtlResult: Sendable {
    var status: Int32
    var output: String
    var errors: String

    /// Runs a program to its end and keeps what it printed.
    static func running(_ executable: String, _ arguments: [String]) throws -> CtlResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try ChildProcess.launch(process)
        // Both pipes read while it runs: a program that prints more than a pipe holds would otherwise never end.
        let complained = Locked(Data())
        let readingErrors = DispatchSemaphore(value: 0)
        Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            complained.withLock { $0 = data }
            readingErrors.signal()
        }.start()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        readingErrors.wait()
        _ = process.waitForExit()
        return CtlResult(
            status: process.terminationStatus,
            output: String(decoding: printed, as: UTF8.self),
            errors: String(decoding: complained.withLock { $0 }, as: UTF8.self)
        )
    }
}

extension ControlConnection {
    /// Reports a stream the client plays itself (`startStream`).
    func startStream(_ number: Int, direction: StreamDirection = .output) throws {
        let request = Request(.startStream(number, direction: direction))
        _ = try result(request)
    }

    /// Events until one satisfies `condition` (waiting up to `seconds`); nil if none did.
    func waitForEvent(seconds: Double = 5, _ condition: (Event) -> Bool) throws -> Event? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let event = try nextEvent(timeout: .milliseconds(100)), condition(event) { return event }
        }
        return nil
    }
}

/// Text that several threads write and read: a command's output while it still runs.
final class SharedText: TextOutputStream, Sendable {
    private let text = Locked("")
    func write(_ string: String) { text.withLock { $0 += string } }
    var value: String { text.withLock { $0 } }
}

