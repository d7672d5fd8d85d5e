import AudioSessionDaemonCore
import Locking
import AudioSessionProtocol
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The D-Bus face inside the daemon: a client of the policy loop like a control-socket connection (client
/// number -1, which the control server never gives out), so a D-Bus call becomes the same `Request` that
/// `audiosessionctl` sends and is answered by the same code. It watches (`watch`) for the status events that
/// become `PropertiesChanged`.
final class FaceClient: Sendable {
    static let id = ClientID(rawValue: -1)

    private struct Waiting {
        var replies: [Int: CheckedContinuation<Reply, Never>] = [:]
        var nextID = 1
        /// After `stop()`: requests are answered at once with `unavailable`.
        var stopped = false
    }

    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let waiting = Locked(Waiting())
    /// The daemon's status after every input that changed it (the `watch` events).
    let statuses: AsyncStream<StatusBody>
    private let statusSink: AsyncStream<StatusBody>.Continuation
    private let mailbox: AsyncStream<ServerMessage>
    private let mailboxSink: AsyncStream<ServerMessage>.Continuation

    init(inputs: AsyncStream<DaemonInput>.Continuation, outboxes: Outboxes) {
        self.inputs = inputs
        self.outboxes = outboxes
        (statuses, statusSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (mailbox, mailboxSink) = AsyncStream.makeStream()
    }

    /// Connects to the policy loop; `deliver()` must run for replies to arrive.
    func connect() {
        outboxes.register(Self.id, mailboxSink)
        inputs.yield(.clientConnected(Self.id, ClientPeer(processID: getpid(), userID: getuid(), processName: "D-Bus face")))
    }

    /// Hands each reply to its request's caller and each status event to `statuses`, until `stop()`.
    func deliver() async {
        for await message in mailbox {
            switch message {
            case .reply(let reply):
                guard case .number(let number)? = reply.id else { continue }
                waiting.withLock { $0.replies.removeValue(forKey: number) }?.resume(returning: reply)
            case .event(let event):
                if event.event == .status, let status = event.status { statusSink.yield(status) }
            }
        }
    }

    /// Sends a request and waits for its reply (a failure reply once the daemon is stopping).
    func send(_ request: Request) async -> Reply {
        await withCheckedContinuation { continuation in
            let number: Int? = waiting.withLock { state in
                guard !state.stopped else { return nil }
                let number = state.nextID
                state.nextID += 1
                state.replies[number] = continuation
                return number
            }
            guard let number else { return continuation.resume(returning: Self.stopping(request.id)) }
            var request = request
            request.id = .number(number)
            inputs.yield(.request(Self.id, request))
        }
    }

    /// Sends the request these JSON fields make (`["op": "\"status\""]`), read as the control socket reads a
    /// line: a value it would refuse is refused with the socket's own error.
    func send(line fields: [String: String]) async -> Reply {
        let line = "{" + fields.sorted { $0.key < $1.key }.map { "\(LineCoding.encode($0.key)):\($0.value)" }
            .joined(separator: ",") + "}"
        do {
            return await send(try Request.decode(line: Array(line.utf8)))
        } catch {
            return .failure(nil, ErrorBody(code: error.code.rawValue, message: error.message, field: error.field))
        }
    }

    /// Leaves the policy loop; requests still waiting are answered as failed (the loop may answer no more).
    func stop() {
        let left = waiting.withLock { state in
            state.stopped = true
            defer { state.replies = [:] }
            return state.replies
        }
        for (number, continuation) in left { continuation.resume(returning: Self.stopping(.number(number))) }
        outboxes.remove(Self.id)
        inputs.yield(.clientDisconnected(Self.id))
        statusSink.finish()
    }

    private static func stopping(_ id: RequestID?) -> Reply {
        .failure(id, ErrorBody(code: "unavailable", message: "the daemon is stopping"))
    }
}
