import AudioSessionProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking connection to the daemon's control socket, for the command-line tool: send a request, read
/// lines until its reply, keep events that arrive meanwhile. The socket is the protocol's `LineSocket`.
final class ControlConnection {
    private let socket: LineSocket
    private var nextID = 1
    /// Events read while waiting for a reply, oldest first.
    private(set) var pendingEvents: [Event] = []

    /// Connects to `path`; the error says what to do when no daemon listens there.
    ///
    /// With `readTimeout`, a read that waits longer for the daemon throws instead of waiting on (tests, live
    /// replays); without, the tool waits as long as the daemon takes (`watch`, `run`).
    init(path: String, readTimeout: Duration? = nil) throws {
        do {
            socket = try LineSocket(path: path, readTimeout: readTimeout)
        } catch {
            throw CLIError("cannot reach audiosessiond at \(path) (\(error.reason)); is it running? (`make run` starts it)")
        }
    }

    /// Sends a request and returns its reply.
    func call(_ request: Request) throws -> Reply {
        var request = request
        let id = nextID
        nextID += 1
        request.id = .number(id)
        try send(line: LineCoding.encode(request))
        while true {
            switch try readMessage() {
            case .reply(let reply) where reply.id == .number(id): return reply
            case .reply: continue
            case .event(let event): pendingEvents.append(event)
            }
        }
    }

    /// Sends a request and returns its result, or throws its error as the daemon worded it.
    func result(_ request: Request) throws -> ReplyResult {
        let reply = try call(request)
        if let error = reply.error { throw CLIError("\(error.code): \(error.message)") }
        return reply.result ?? ReplyResult()
    }

    /// The next event, waiting for it.
    func nextEvent() throws -> Event {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        while true {
            if case .event(let event) = try readMessage() { return event }
        }
    }

    /// The next event, or nil when none arrives within `timeout` (or a signal cuts the wait short): for loops
    /// that also watch something else, a child process or a signal.
    func nextEvent(timeout: Duration) throws -> Event? {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        while true {
            if !socket.hasBufferedLine {
                var poller = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(max(timeout / .milliseconds(1), 0), 3_600_000))
                guard poll(&poller, 1, milliseconds) > 0 else { return nil }
            }
            if case .event(let event) = try readMessage() { return event }
        }
    }

    func send(line: String) throws {
        do { try socket.send(line: line) } catch { throw CLIError.connectionClosed }
    }

    private func readMessage() throws -> ServerMessage {
        let line = try readLine()
        do {
            return try LineCoding.decodeServerMessage(line)
        } catch {
            throw CLIError("the daemon sent something unreadable: \(String(decoding: line, as: UTF8.self))")
        }
    }

    func readLine() throws -> [UInt8] {
        do {
            return try socket.readLine()
        } catch where error.kind == .closed {
            throw CLIError.connectionClosed
        } catch {
            throw CLIError(error.reason)
        }
    }
}

/// An error of the command-line tool, printed as it is.
struct CLIError: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// The daemon went away (it stopped, or it closed this connection).
    static let connectionClosed = CLIError("the daemon closed the connection")
}
