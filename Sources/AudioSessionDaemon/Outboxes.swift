import AudioSessionProtocol
import Synchronization

/// Where messages for each connected client go: the control server registers a queue per connection and
/// writes it to the socket; the policy service puts messages in.
final class Outboxes: Sendable {
    private let queues = Mutex<[ClientID: AsyncStream<ServerMessage>.Continuation]>([:])

    func register(_ client: ClientID, _ queue: AsyncStream<ServerMessage>.Continuation) {
        queues.withLock { $0[client] = queue }
    }

    func remove(_ client: ClientID) {
        queues.withLock { $0.removeValue(forKey: client) }?.finish()
    }

    func send(_ message: ServerMessage, to client: ClientID) {
        _ = queues.withLock { $0[client] }?.yield(message)
    }
}
