import AudioSessionTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A control-socket client made of system calls only, for what a well-behaved client never does: close its
/// sending side, write without reading, connect without blocking. Every wait has a limit.
final class RawSocketClient {
    let descriptor: Int32

    /// Connects to `path`. `blocking: false` connects without waiting: a full listen backlog is `EAGAIN`,
    /// thrown as `RawSocketError.refused`.
    init(path: String, blocking: Bool = true) throws {
        var flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if !blocking { flags |= Int32(SOCK_NONBLOCK.rawValue) }
        let descriptor = socket(AF_UNIX, flags, 0)
        guard descriptor >= 0 else { throw RawSocketError.failed("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 {
            let error = errno
            close(descriptor)
            throw error == EAGAIN ? RawSocketError.refused : RawSocketError.failed("connect", error)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Writes all of `text`, waiting at most `seconds` for room; false when the daemon closed the connection
    /// (EPIPE, ECONNRESET), without SIGPIPE.
    func write(_ text: String, seconds: Int = 15) throws -> Bool {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { return false }
                throw RawSocketError.failed("send", errno)
            }
            sent += count
        }
        return true
    }

    /// Closes the sending side only: the daemon reads end-of-file, the client can still read.
    func closeSendingSide() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Reads `count` lines, waiting at most `seconds` for them.
    func readLines(_ count: Int, seconds: Double = 60) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while pending.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            guard try readSome(until: deadline) else {
                throw RawSocketError.timedOut(String(decoding: pending, as: UTF8.self))
            }
        }
        var lines: [String] = []
        while lines.count < count, let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return lines
    }

    /// Reads until the daemon closes the connection; throws if that takes longer than `seconds`.
    func readToEnd(seconds: Double = 60) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while try readSome(until: deadline) {}
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Bytes read and not yet returned as lines.
    private var pending: [UInt8] = []

    /// Reads what has come; false at end of file. Throws when nothing comes before `deadline`.
    private func readSome(until deadline: Date) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw RawSocketError.timedOut(String(decoding: pending, as: UTF8.self)) }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(left * 1000))
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return false }
                throw RawSocketError.failed("recv", errno)
            }
            if count == 0 { return false }
            pending += chunk[..<count]
            return true
        }
    }
}

enum RawSocketError: Error, CustomStringConvertible {
    case refused
    case failed(String, Int32)
    case timedOut(String)

    var description: String {
        switch self {
        case .refused: "the connection was refused: the listen backlog is full (EAGAIN)"
        case .failed(let call, let error): "\(call): \(String(cString: strerror(error)))"
        case .timedOut(let read): "the daemon did not close the connection in time; read so far: \(read.prefix(400))"
        }
    }
}

/// The resident memory of a process, from `/proc/PID/status` (`VmRSS`), in bytes.
func residentBytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    return kilobytes.map { $0 * 1024 }
}
