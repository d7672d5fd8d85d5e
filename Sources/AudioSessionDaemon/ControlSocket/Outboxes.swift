import AudioSessionDaemonCore
import AudioSessionProtocol
import Locking

/// Where one client's messages go: a socket connection's bounded queue (`ConnectionFlow`), or a plain stream
/// for a client inside the daemon (the systemd notifier).
protocol ClientOutbox: Sendable {
    func put(_ message: ServerMessage)
    func finish()
}

extension AsyncStream.Continuation: ClientOutbox where Element == ServerMessage {
    func put(_ message: ServerMessage) { yield(message) }
}

/// Where messages for each connected client go: the control server registers a queue per connection and
/// writes it to the socket; the policy service puts messages in.
final class Outboxes: Sendable {
    private let queues = Locked<[ClientID: any ClientOutbox]>([:])

    func register(_ client: ClientID, _ queue: any ClientOutbox) {
        queues.withLock { $0[client] = queue }
    }

    func remove(_ client: ClientID) {
        queues.withLock { $0.removeValue(forKey: client) }?.finish()
    }

    func send(_ message: ServerMessage, to client: ClientID) {
        queues.withLock { $0[client] }?.put(message)
    }
}
