import AudioSessionProtocol
import NIOCore
import Locking

/// One connection's outbox and its budget (`ConnectionBudget`): the policy loop puts messages in, the
/// connection's writer takes them out as lines, and its reader waits here for room before it takes a request.
final class ConnectionFlow: ClientOutbox {
    /// A message ready for the socket.
    struct Line: Sendable {
        var bytes: ByteBuffer
        var isReply: Bool
    }

    /// A request is charged at least this much, about what its decoded form and its place in the input queue
    /// take, so that a flood of short lines is bounded as tightly as a few long ones.
    static let smallestRequestCost = 1024

    private struct State {
        var budget = ConnectionBudget()
        /// The reader, waiting for room for a request of this many bytes.
        var reader: (bytes: Int, continuation: CheckedContinuation<Void, Never>)?
        /// The reader, waiting until every reply is written.
        var drain: CheckedContinuation<Void, Never>?

        /// The waiters that may go on now, taken out of the state.
        mutating func wakeable() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            if let reader, budget.ended || budget.hasRoom(forRequest: reader.bytes) {
                ready.append(reader.continuation)
                self.reader = nil
            }
            if let drain, budget.ended || (budget.inputEnded && budget.drained) {
                ready.append(drain)
                self.drain = nil
            }
            return ready
        }
    }

    private let state = Locked(State())
    private let lines: AsyncStream<Line>.Continuation
    /// What the writer writes, in order.
    let outgoing: AsyncStream<Line>
    /// Called once, outside the lock, when the client is past `ConnectionBudget.unsentLimit`.
    private let overflowed: @Sendable (_ unsentBytes: Int) -> Void

    init(overflowed: @escaping @Sendable (_ unsentBytes: Int) -> Void) {
        (outgoing, lines) = AsyncStream<Line>.makeStream()
        self.overflowed = overflowed
    }

    /// Called by the policy loop (through `Outboxes`): encodes the message and queues it, or ends the connection.
    func put(_ message: ServerMessage) {
        let isReply = if case .reply = message { true } else { false }
        let line = Line(bytes: ByteBuffer(string: LineCoding.encode(message) + "\n"), isReply: isReply)
        let (decision, ready) = state.withLock { state in
            let decision = state.budget.queue(bytes: line.bytes.readableBytes, isReply: isReply)
            return (decision, state.wakeable())
        }
        for waiter in ready { waiter.resume() }
        switch decision {
        case .queue:
            lines.yield(line)
        case .drop:
            break
        case .overflow(let unsentBytes):
            lines.finish()
            overflowed(unsentBytes)
        }
    }

    func finish() { lines.finish() }

    /// Waits until a request of `bytes` (at least `smallestRequestCost`) may be taken, and counts it taken;
    /// false when the connection is over.
    func admit(requestOf bytes: Int) async -> Bool {
        let cost = max(bytes, Self.smallestRequestCost)
        while true {
            let admitted: Bool? = state.withLock { state in
                if state.budget.ended { return false }
                guard state.budget.hasRoom(forRequest: cost) else { return nil }
                state.budget.take(request: cost)
                return true
            }
            if let admitted { return admitted }
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.budget.ended || state.budget.hasRoom(forRequest: cost) { return true }
                    state.reader = (cost, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// A line is in the kernel's socket buffer.
    func written(_ line: Line) {
        let ready = state.withLock { state in
            state.budget.written(bytes: line.bytes.readableBytes, isReply: line.isReply)
            return state.wakeable()
        }
        for waiter in ready { waiter.resume() }
    }

    /// The client sent its last request: waits until each request it sent has its reply written, or the
    /// connection is over.
    func drainAfterLastRequest() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                state.budget.endInput()
                state.drain = continuation
                return state.wakeable()
            }
            for waiter in ready { waiter.resume() }
        }
    }

    /// The connection is closed (or its writer stopped): nothing more is queued or awaited.
    func end() {
        let ready = state.withLock { state in
            state.budget.end()
            return state.wakeable()
        }
        for waiter in ready { waiter.resume() }
        lines.finish()
    }
}
