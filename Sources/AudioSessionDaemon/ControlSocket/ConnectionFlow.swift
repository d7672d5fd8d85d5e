import AudioSessionProtocol
import NIOCore
import Locking

/// One connection's outbox and its budget (`ConnectionBudget`): the policy loop puts messages in, the
/// connection's writer takes them out as lines, and its reader waits here for room before it takes a request.
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

    private struct State {
        var budget = ConnectionBudget()
        /// The lines queued and not yet taken by the writer, oldest first.
        var pending = CircularBuffer<Line>()
        /// No more lines: the writer ends once it has taken the pending ones.
        var finished = false
        /// The writer's task is cancelled: it takes nothing more.
        var stopped = false
        /// The writer, waiting for a line.
        var writer: CheckedContinuation<Line?, Never>?
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

        /// The writer with what it is to get now (a line, or nil for the end), if it waits and may go on.
        mutating func wakeableWriter() -> (CheckedContinuation<Line?, Never>, Line?)? {
            guard let writer else { return nil }
            if stopped {
                self.writer = nil
                return (writer, nil)
            }
            if let line = pending.popFirst() {
                self.writer = nil
                return (writer, line)
            }
            guard finished else { return nil }
            self.writer = nil
            return (writer, nil)
        }
    }

    private let state = Locked(State())
    /// Called once, outside the lock, when the client is past `ConnectionBudget.unsentLimit`.
    private let overflowed: @Sendable (_ unsentBytes: Int) -> Void

    init(overflowed: @escaping @Sendable (_ unsentBytes: Int) -> Void) {
        self.overflowed = overflowed
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
        let (decision, writer, ready) = state.withLock { state in
            if kind == .status, !state.budget.ended, let older = state.pending.firstIndex(where: { $0.kind == .status }) {
                state.budget.withdraw(bytes: state.pending.remove(at: older).bytes.readableBytes)
            }
            let decision = state.budget.queue(bytes: line.bytes.readableBytes, isReply: line.isReply)
            switch decision {
            case .queue: state.pending.append(line)
            case .drop: break
            case .overflow: state.finished = true
            }
            return (decision, state.wakeableWriter(), state.wakeable())
        }
        if let (waiting, next) = writer { waiting.resume(returning: next) }
        for waiter in ready { waiter.resume() }
        if case .overflow(let unsentBytes) = decision { overflowed(unsentBytes) }
    }

    func finish() {
        let writer = state.withLock { state in
            state.finished = true
            return state.wakeableWriter()
        }
        if let (waiting, next) = writer { waiting.resume(returning: next) }
    }

    /// The writer's next line, in order, waiting for one; nil once the connection has no more, or the writer's
    /// task is cancelled.
    func nextLine() async -> Line? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let writer = state.withLock { state in
                    state.writer = continuation
                    if Task.isCancelled { state.stopped = true }
                    return state.wakeableWriter()
                }
                if let (waiting, next) = writer { waiting.resume(returning: next) }
            }
        } onCancel: {
            let writer = state.withLock { state in
                state.stopped = true
                return state.wakeableWriter()
            }
            if let (waiting, next) = writer { waiting.resume(returning: next) }
        }
    }

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
        let (ready, writer) = state.withLock { state in
            state.budget.end()
            state.finished = true
            state.pending.removeAll()
            return (state.wakeable(), state.wakeableWriter())
        }
        for waiter in ready { waiter.resume() }
        if let (waiting, next) = writer { waiting.resume(returning: next) }
    }
}
