import AudioSessionProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking connection to the daemon's control socket, for the command-line tool: send a request, read
/// lines until its reply, keep events that arrive meanwhile.
final class ControlConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Events read while waiting for a reply, oldest first.
    private(set) var pendingEvents: [Event] = []

    /// Connects to `path`; the error says what to do when no daemon listens there.
    ///
    /// The socket is closed here on failure and stored only once connected: a class initializer that throws
    /// after every stored property is set runs `deinit`, which would close the same number a second time, by
    /// then perhaps another thread's new descriptor (libpulse's, in the tests).
    ///
    /// With `readTimeout`, a read that waits longer for the daemon throws instead of waiting on (tests, live
    /// replays); without, the tool waits as long as the daemon takes (`watch`, `run`).
    init(path: String, readTimeout: Duration? = nil) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw CLIError("cannot create a socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw CLIError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw CLIError("cannot reach audiosessiond at \(path) (\(reason)); is it running? (`make run` starts it)")
        }
        if let readTimeout {
            let (seconds, attoseconds) = readTimeout.components
            var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        self.descriptor = descriptor
        self.readTimeout = readTimeout
    }

    /// How long a read waits for the daemon; nil: as long as it takes.
    let readTimeout: Duration?

    deinit { close(descriptor) }

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
            if !buffer.contains(UInt8(ascii: "\n")) {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(max(timeout / .milliseconds(1), 0), 3_600_000))
                guard poll(&poller, 1, milliseconds) > 0 else { return nil }
            }
            if case .event(let event) = try readMessage() { return event }
        }
    }

    func send(line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw CLIError("the daemon closed the connection") }
            sent += count
        }
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
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), let readTimeout {
                throw CLIError("audiosessiond sent nothing within \(readTimeout) (it may be stuck)")
            }
            guard count > 0 else { throw CLIError.connectionClosed }
            buffer += chunk[..<count]
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
