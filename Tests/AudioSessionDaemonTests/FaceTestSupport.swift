import Locking
import AudioSessionDaemon
import AudioSessionTestSupport
import DBusBackend
import Foundation
import Logging

@testable import AudioSessionCLI

/// A daemon in this process (no sound server) serving its D-Bus interface on a private `dbus-daemon` of its
/// own; `busctl`, `gdbus` and `audiosessionctl` talk to it as a shell, a user and a script would.
struct FaceDaemon: Sendable {
    static let name = "org.audiosessiond.Daemon1"
    static let path = "/org/audiosessiond/Daemon1"
    static let interface = "org.audiosessiond.Daemon1"

    let bus: PrivateSessionBus
    let daemon: InProcessDaemon

    /// Starts a bus and a daemon, waits until the daemon owns its name, runs `body`, stops both.
    /// `everyUser`: the bus admits other users (a call as nobody).
    static func with<Result: Sendable>(
        everyUser: Bool = false,
        log: KeptLog? = nil,
        _ body: (FaceDaemon) async throws -> Result
    ) async throws -> Result {
        let bus = try await PrivateSessionBus.start(everyUser: everyUser)
        defer { bus.stop() }
        return try await with(on: bus, log: log, body)
    }

    /// The same on a bus the caller started (and stops).
    static func with<Result: Sendable>(
        on bus: PrivateSessionBus,
        log: KeptLog? = nil,
        _ body: (FaceDaemon) async throws -> Result
    ) async throws -> Result {
        let observer = try DBusConnection(.address(bus.address))
        defer { observer.close() }
        let owners = try await observer.nameOwnerChanges(for: name)
        let directory = FileManager.default.temporaryDirectory.path + "/face-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control"
        var logger = log.map { kept in Logger(label: "audiosessiond-test") { _ in kept } } ?? Logger(label: "audiosessiond-test")
        logger.logLevel = log == nil ? .warning : .info
        // Its socket listening and its name owned are waited for both: the name can come first.
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let daemon = Task { [logger] in
            defer { readyContinuation.finish() }
            try await Daemon.run(
                DaemonOptions(
                    socketPath: path, soundServer: false, onReady: { readyContinuation.yield() },
                    dbusFace: .address(bus.address)),
                logger: logger
            )
        }
        for await _ in ready { break }
        do {
            try await within(30, "the daemon to own \(name)") {
                if try await observer.nameOwner(name) != nil { return }
                for await change in owners where change.newOwner != nil { return }
                throw FaceTestError("the bus went away before the daemon owned \(name)")
            }
            let result = try await body(FaceDaemon(bus: bus, daemon: InProcessDaemon(socketPath: path)))
            daemon.cancel()
            _ = await daemon.result
            return result
        } catch {
            daemon.cancel()
            _ = await daemon.result
            throw error
        }
    }

    /// A connection of this test's own to the bus (closed by the caller).
    func connection() throws -> DBusConnection { try DBusConnection(.address(bus.address)) }

    /// Runs `busctl --address=BUS ARGUMENTS` (as user nobody with `asNobody`) on a thread of its own.
    func busctl(_ arguments: [String], asNobody: Bool = false) async throws -> ChildProcess.Output {
        let busctl = try Self.tool("busctl")
        var command = [busctl.path, "--address=\(bus.address)"] + arguments
        if asNobody { command = [try Self.tool("setpriv").path, "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command }
        return try await Self.run(command)
    }

    /// Runs `gdbus` with `--address BUS` after its subcommand.
    func gdbus(_ subcommand: String, _ arguments: [String]) async throws -> ChildProcess.Output {
        try await Self.run([try Self.tool("gdbus").path, subcommand, "--address", bus.address] + arguments)
    }

    /// Runs a command line to its end, on a thread of its own, within a safety limit.
    static func run(_ command: [String]) async throws -> ChildProcess.Output {
        try await onThread {
            try ChildProcess.run(
                URL(fileURLWithPath: command[0]),
                Array(command.dropFirst()),
                environment: ChildProcess.environment([:]),
                timeout: .seconds(30)
            )
        }
    }

    static func tool(_ name: String) throws -> URL {
        guard let url = ChildProcess.executable(named: name) else { throw FaceTestError("\(name) is not installed") }
        return url
    }

    /// The repository's root, from this file's place in it.
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}

struct FaceTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body`, failing after `seconds` (a safety limit, never the thing tested).
func within<Result: Sendable>(
    _ seconds: Double,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withTimeout(seconds, what, body)
}

/// The first change of `changes` whose properties satisfy `condition`, within a safety limit.
func firstChange(
    _ changes: AsyncStream<DBusPropertiesChange>,
    _ what: String,
    where condition: @escaping @Sendable ([String: DBusValue]) -> Bool
) async throws -> DBusPropertiesChange {
    try await within(20, what) {
        for await change in changes where condition(change.changed) { return change }
        throw FaceTestError("the signals ended before \(what)")
    }
}

/// Log lines kept in memory, for a test that reads what the daemon said.
final class KeptLog: LogHandler, @unchecked Sendable {
    private let lines = Locked<[String]>([])
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append(event.message.description) }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// A client connection held across awaits (a connection is used from one thread at a time; this test makes it
/// on one and only drops it later). Dropping it closes it: the session ends.
final class HeldClient: @unchecked Sendable {
    private var connection: ControlConnection?
    init(_ connection: ControlConnection) { self.connection = connection }
    func close() { connection = nil }
}
