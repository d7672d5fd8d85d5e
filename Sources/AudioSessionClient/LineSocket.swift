import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One connected Unix stream socket speaking newline-delimited lines. Owned by the connection thread alone,
/// so it needs no lock; `close()` is idempotent and also runs on deinit.
final class LineSocket {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `path`, or throws `daemonUnavailable` naming it.
    init(path: String) throws(AudioSessionError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .daemonUnavailable(path, "cannot create a socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            throw .daemonUnavailable(path, "the socket path is too long")
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
            Glibc.close(descriptor)
            throw .daemonUnavailable(path, reason)
        }
        self.descriptor = descriptor
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Writes one line; false when the daemon is gone. MSG_NOSIGNAL: a closed peer must not kill the app.
    func send(line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// The next complete line already read, without its newline; blank lines are skipped.
    func bufferedLine() -> [UInt8]? {
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) { return line }
        }
        return nil
    }

    /// Reads what has arrived (one `read`); false at end of stream or on error.
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer += chunk[..<count]
            return true
        }
    }
}
