import AudioSessionProtocol
import DequeModule
import NIOCore
import Locking

/// One connection's outbox and its budget (`ConnectionBudget`): the policy loop puts messages in, and the
/// connection's handler (`ControlConnectionHandler`, on the channel's event loop) takes them out as lines and asks here
/// whether a request may be taken. Each change that gives the handler something to do calls `wake`.
///
/// Only the latest status matters to a `watch` (and to `run`): a status event still waiting to be written is
/// replaced by a newer one, so a reader that falls behind on statuses gets the newest when it catches up and is
/// never disconnected for statuses alone.
final class ConnectionFlow: ClientOutbox {
    /// A message ready for the socket.
    struct Line: Sendable {
        enum Kind: Sendable { case reply, status, event }
        var bytes: ByteBuffer
        var kind: Kind
        var isReply: Bool { kind == .reply }
    }

    /// A request is charged at least this much, about what its decoded form and its place in the input queue
    /// take, so that a flood of short lines is bounded as tightly as a few long ones.
    static let smallestRequestCost = 1024

    /// What a request may do now.
    enum Admission {
        /// Taken: it is counted until its reply is written.
        case taken
        /// Not yet: the budget has no room until replies are written.
        case wait
        /// The connection is over.
        case ended
    }

    private struct State {
        var budget = ConnectionBudget()
        /// The lines queued and not yet taken by the writer, oldest first.
        var pending = Deque<Line>()
        /// No more lines: the connection ends once the pending ones are written.
        var finished = false
    }

    private let state = Locked(State())
    /// Called once, outside the lock, when the client is past `ConnectionBudget.unsentLimit`.
    private let overflowed: @Sendable (_ unsentBytes: Int) -> Void
    /// Called, from any thread and outside the lock, when the handler has something new to do.
    private let wake: @Sendable () -> Void

    init(overflowed: @escaping @Sendable (_ unsentBytes: Int) -> Void, wake: @escaping @Sendable () -> Void) {
        self.overflowed = overflowed
        self.wake = wake
    }

    /// Called by the policy loop (through `Outboxes`): encodes the message and queues it (in place of a status
    /// not yet written, for a status), or ends the connection.
    func put(_ message: ServerMessage) {
        let kind: Line.Kind =
            switch message {
            case .reply: .reply
            case .event(let event): event.event == .status ? .status : .event
            }
        let line = Line(bytes: ByteBuffer(string: LineCoding.encode(message) + "\n"), kind: kind)
        let decision = state.withLock { state in
            if kind == .status, !state.budget.ended, let older = state.pending.firstIndex(where: { $0.kind == .status }) {
                state.budget.withdraw(bytes: state.pending.remove(at: older).bytes.readableBytes)
            }
            let decision = state.budget.queue(bytes: line.bytes.readableBytes, isReply: line.isReply)
            switch decision {
            case .queue: state.pending.append(line)
            case .drop: break
            case .overflow: state.finished = true
            }
            return decision
        }
        switch decision {
        case .queue: wake()
        case .drop: break
        case .overflow(let unsentBytes): overflowed(unsentBytes)
        }
    }

    func finish() {
        state.withLock { $0.finished = true }
        wake()
    }

    /// The writer's next line, in order; nil when none waits.
    func nextLine() -> Line? {
        state.withLock { $0.budget.ended ? nil : $0.pending.popFirst() }
    }

    /// Whether a request of `bytes` (at least `smallestRequestCost`) may be taken now; when it is, it is counted.
    func admit(requestOf bytes: Int) -> Admission {
        let cost = max(bytes, Self.smallestRequestCost)
        return state.withLock { state in
            if state.budget.ended { return .ended }
            guard state.budget.hasRoom(forRequest: cost) else { return .wait }
            state.budget.take(request: cost)
            return .taken
        }
    }

    /// A line is in the kernel's socket buffer.
    func written(_ line: Line) {
        state.withLock { $0.budget.written(bytes: line.bytes.readableBytes, isReply: line.isReply) }
    }

    /// The client sent its last request (it closed its side).
    func endInput() {
        state.withLock { $0.budget.endInput() }
    }

    /// Whether the connection is to be closed now: it is over (ended, or finished with every line written), or
    /// the client sent its last request and each has its reply written.
    var isDone: Bool {
        state.withLock { state in
            state.budget.ended || (state.finished && state.pending.isEmpty)
                || (state.budget.inputEnded && state.budget.drained)
        }
    }

    /// The connection is closed: nothing more is queued or taken.
    func end() {
        state.withLock { state in
            state.budget.end()
            state.finished = true
            state.pending.removeAll()
        }
    }
}
