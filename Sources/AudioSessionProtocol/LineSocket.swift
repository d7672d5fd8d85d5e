import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to the control socket, speaking newline-delimited lines: the one transport of the
/// command-line tool, the client library and the benchmark (and through the tool's connection, the tests).
/// It is owned by one thread at a time and takes no lock; `close()` closes the descriptor once, and runs on
/// deinit.
public final class LineSocket {
    /// Why the connection could not be made or used; `reason` says it in words.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// No socket could be made, or nothing accepts at the path; `reason` is the system's.
            case cannotConnect
            /// The daemon closed the connection, or a write to it failed.
            case closed
            /// Nothing came within the read timeout.
            case timedOut
        }

        public var kind: Kind
        public var reason: String
        public var description: String { reason }
    }

    /// For `poll`: readable when `fill()` has something to read.
    public let descriptor: Int32
    /// How long a read waits for the daemon; nil: as long as it takes.
    public let readTimeout: Duration?
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `path`. The descriptor is close-on-exec, so an app's children do not hold its connection.
    /// It is closed here on failure and stored only once connected: a class initializer that throws after
    /// every stored property is set runs `deinit`, which would close the same number a second time, by then
    /// perhaps another thread's new descriptor (libpulse's, which then aborts).
    public init(path: String, readTimeout: Duration? = nil) throws(Failure) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(kind: .cannotConnect, reason: "cannot create a socket: \(Self.errorText())") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            throw Failure(kind: .cannotConnect, reason: "the socket path is too long")
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
            let reason = Self.errorText()
            Glibc.close(descriptor)
            throw Failure(kind: .cannotConnect, reason: reason)
        }
        if let readTimeout {
            let (seconds, attoseconds) = readTimeout.components
            var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        self.readTimeout = readTimeout
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Closes the connection; later calls do nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Writes one line and its newline. MSG_NOSIGNAL: a daemon that went away must not kill the writer.
    public func send(line: String) throws(Failure) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(kind: .closed, reason: "the daemon closed the connection") }
            sent += count
        }
    }

    /// The next complete line already read, without its newline (or carriage return); blank lines are skipped.
    public func bufferedLine() -> [UInt8]? {
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.contains(where: { !Self.isBlank($0) }) { return line }
        }
        return nil
    }

    /// Whether a whole line that is not blank is waiting (then `readLine()` needs no read).
    public var hasBufferedLine: Bool {
        var start = buffer.startIndex
        while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if buffer[start..<newline].contains(where: { !Self.isBlank($0) }) { return true }
            start = newline + 1
        }
        return false
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// Reads what has arrived, with one `read` (waiting for it unless `poll` said it is there).
    public func fill() throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), let readTimeout {
                throw Failure(kind: .timedOut, reason: "audiosessiond sent nothing within \(readTimeout) (it may be stuck)")
            }
            guard count > 0 else { throw Failure(kind: .closed, reason: "the daemon closed the connection") }
            buffer += chunk[..<count]
            return
        }
    }

    /// The next line, reading as long as it takes (or the read timeout).
    public func readLine() throws(Failure) -> [UInt8] {
        while true {
            if let line = bufferedLine() { return line }
            try fill()
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
