import Locking

/// Hands every event to each live subscriber stream; ends them all once, with or without a last event.
final class EventBroadcaster: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<PulseEvent>.Continuation] = [:]
        var nextID = 0
        /// Set once finished: the last event new subscribers get (nil after `close()`).
        var ending: PulseEvent?? = nil
    }

    private let state = Locked(State())

    /// A new stream of the events from now on; already finished if the connection has ended.
    func subscribe() -> AsyncStream<PulseEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PulseEvent.self, bufferingPolicy: .unbounded)
        let ending: PulseEvent?? = state.withLock { state in
            if let ending = state.ending { return .some(ending) }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            }
            return .none
        }
        if case .some(let last) = ending {
            if let last { continuation.yield(last) }
            continuation.finish()
        }
        return stream
    }

    /// Yields `event` to every subscriber (outside the lock, so `onTermination` may take it).
    func yield(_ event: PulseEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Yields `last` (if any) and ends every stream; later calls do nothing.
    func finish(with last: PulseEvent?) {
        let subscribers: [AsyncStream<PulseEvent>.Continuation] = state.withLock { state in
            guard state.ending == nil else { return [] }
            state.ending = .some(last)
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            if let last { subscriber.yield(last) }
            subscriber.finish()
        }
    }
}
