import AudioSessionProtocol
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in daemon on a socket of its own, for what the real one sends only with a sound server (its
/// `mediaServicesWereReset` when the server comes back): it takes one connection, answers every request with
/// success (no state), records each request before answering it, and sends the events a test tells it to.
/// Its thread closes every descriptor it made, once the client has gone or `stop()` was called.
final class FakeDaemon: Sendable {
    let socketPath: String
    private let directory: String
    private let listener: Int32
    private let state = Locked(State())

    private struct State: Sendable {
        var requests: [Request] = []
        var client: Int32?
        var stopped = false
        /// The thread has closed the descriptors: nothing may touch their numbers again.
        var closed = false
        /// Sent before the reply to the next request of this operation.
        var before: [AudioSessionProtocol.Operation: Event] = [:]
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory.path + "/fake-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socketPath = directory + "/control"
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 1) == 0 else {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw DaemonTestError("the fake daemon cannot listen on \(socketPath): \(String(cString: strerror(errno)))")
        }
        listener = descriptor
        Thread { [self] in serve() }.start()
    }

    /// The requests read so far, in order.
    var requests: [Request] { state.withLock { $0.requests } }

    /// Sends `event` before the reply to the next request of `operation`.
    func send(_ event: Event, before operation: AudioSessionProtocol.Operation) {
        state.withLock { $0.before[operation] = event }
    }

    /// Sends `event` now, outside any reply.
    func send(_ event: Event) {
        state.withLock { state in
            if let client = state.client { Self.write(LineCoding.encode(event), to: client) }
        }
    }

    /// Ends the connection (as a daemon that went away) and stops listening; the thread closes the descriptors.
    func stop() {
        state.withLock { state in
            state.stopped = true
            guard !state.closed else { return }
            if let client = state.client { shutdown(client, Int32(SHUT_RDWR)) }
            shutdown(listener, Int32(SHUT_RDWR))
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func serve() {
        let client = accept(listener, nil, nil)
        let accepted = state.withLock { state in
            guard client >= 0, !state.stopped else { return false }
            state.client = client
            return true
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while accepted {
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let request = try? Request.decode(line: line) else { continue }
                state.withLock { state in
                    state.requests.append(request)
                    if let event = state.before.removeValue(forKey: request.op) {
                        Self.write(LineCoding.encode(event), to: client)
                    }
                    Self.write(LineCoding.encode(Reply.success(request.id)), to: client)
                }
            }
        }
        state.withLock { state in
            state.client = nil
            state.closed = true
            if client >= 0 { Glibc.close(client) }
            Glibc.close(listener)
        }
    }

    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
