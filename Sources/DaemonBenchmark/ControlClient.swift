import AudioSessionProtocol

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A minimal blocking client of the daemon's control socket, on the protocol's `LineSocket`: one request line
/// out, reply lines in (events that arrive meanwhile are skipped; benchmark clients do not subscribe).
final class ControlClient {
    private let socket: LineSocket
    private var nextID = 1

    /// Connects to `path`; nil if nothing accepts there (yet).
    static func tryConnect(_ path: String) -> ControlClient? {
        (try? LineSocket(path: path)).map(ControlClient.init(socket:))
    }

    static func connect(_ path: String) throws -> ControlClient {
        do {
            return ControlClient(socket: try LineSocket(path: path))
        } catch {
            throw BenchError("cannot connect to the daemon at \(path): \(error.reason)")
        }
    }

    private init(socket: LineSocket) { self.socket = socket }

    /// Sends one request, written as the JSON object's members without `id` (e.g. `"op":"activate"`), with a
    /// fresh id; returns the id without waiting for the reply.
    @discardableResult
    func send(_ members: String) throws -> RequestID {
        let id = nextID
        nextID += 1
        do { try socket.send(line: "{\"id\":\(id),\(members)}") } catch { throw BenchError(error.reason) }
        return .number(id)
    }

    /// Reads until the reply to `id`; throws the daemon's error if it refused.
    @discardableResult
    func reply(to id: RequestID) throws -> ReplyResult {
        while true {
            let line: [UInt8]
            do { line = try socket.readLine() } catch { throw BenchError(error.reason) }
            guard case .reply(let reply) = try LineCoding.decodeServerMessage(line), reply.id == id else { continue }
            if let error = reply.error { throw BenchError("daemon refused request \(id): \(error.code): \(error.message)") }
            return reply.result ?? ReplyResult()
        }
    }

    @discardableResult
    func call(_ members: String) throws -> ReplyResult { try reply(to: send(members)) }
}
