import AudioSessionProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A minimal blocking client of the daemon's control socket: one request line out, reply lines in (events that
/// arrive meanwhile are skipped; benchmark clients do not subscribe).
final class ControlClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    /// Connects to `path`; nil if nothing accepts there (yet).
    static func tryConnect(_ path: String) -> ControlClient? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return ControlClient(descriptor: descriptor)
    }

    static func connect(_ path: String) throws -> ControlClient {
        guard let client = tryConnect(path) else { throw BenchError("cannot connect to the daemon at \(path): errno \(errno)") }
        return client
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Sends one request, written as the JSON object's members without `id` (e.g. `"op":"activate"`), with a
    /// fresh id; returns the id without waiting for the reply.
    @discardableResult
    func send(_ members: String) throws -> RequestID {
        let id = nextID
        nextID += 1
        let bytes = Array("{\"id\":\(id),\(members)}\n".utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchError("the daemon closed the connection") }
            sent += count
        }
        return .number(id)
    }

    /// Reads until the reply to `id`; throws the daemon's error if it refused.
    @discardableResult
    func reply(to id: RequestID) throws -> ReplyResult {
        while true {
            let line = try readLine()
            guard case .reply(let reply) = try LineCoding.decodeServerMessage(line), reply.id == id else { continue }
            if let error = reply.error { throw BenchError("daemon refused request \(id): \(error.code): \(error.message)") }
            return reply.result ?? ReplyResult()
        }
    }

    @discardableResult
    func call(_ members: String) throws -> ReplyResult { try reply(to: send(members)) }

    private func readLine() throws -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchError("the daemon closed the connection") }
            buffer += chunk[..<count]
        }
    }
}

