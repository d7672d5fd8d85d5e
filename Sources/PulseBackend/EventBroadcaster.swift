import Locking

/// Hands every event to each live subscriber; ends them all once, with or without a last event. A subscriber is
/// an `AsyncStream` or a handler: a handler runs on the libpulse thread as the event is read, so that a consumer
/// with a queue of its own takes it there without another hop through a task.
final class EventBroadcaster: Sendable {
    private struct Subscriber: Sendable {
        let deliver: @Sendable (PulseEvent, PulsePrefetch?) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State: Sendable {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// Set once finished: the last event new subscribers get (nil after `close()`).
        var ending: PulseEvent?? = nil
    }

    private let state = Locked(State())

    /// A new stream of the events from now on; already finished if the connection has ended.
    func subscribe() -> AsyncStream<PulseEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PulseEvent.self, bufferingPolicy: .unbounded)
        let id = add(Subscriber(deliver: { event, _ in continuation.yield(event) }, finish: { continuation.finish() }))
        if let id {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Calls `handler` with every event from now on, on the thread that reads it, the last one included
    /// (`.disconnected`, when the connection is lost rather than closed), and a new stream's prefetched info when
    /// there is one. Keep it short: it holds up libpulse.
    func listen(_ handler: @escaping @Sendable (PulseEvent, PulsePrefetch?) -> Void) {
        _ = add(Subscriber(deliver: handler, finish: {}))
    }

    /// Registers `subscriber`; its id, or nil when already finished (it is then given the ending at once).
    private func add(_ subscriber: Subscriber) -> Int? {
        let outcome: (id: Int?, ending: PulseEvent??) = state.withLock { state in
            if let ending = state.ending { return (nil, .some(ending)) }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = subscriber
            return (id, .none)
        }
        if case .some(let last) = outcome.ending {
            if let last { subscriber.deliver(last, nil) }
            subscriber.finish()
        }
        return outcome.id
    }

    /// Yields `event` to every subscriber (outside the lock, so `onTermination` may take it).
    func yield(_ event: PulseEvent, prefetched: PulsePrefetch? = nil) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.deliver(event, prefetched) }
    }

    /// Yields `last` (if any) and ends every subscriber; later calls do nothing.
    func finish(with last: PulseEvent?) {
        let subscribers: [Subscriber] = state.withLock { state in
            guard state.ending == nil else { return [] }
            state.ending = .some(last)
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            if let last { subscriber.deliver(last, nil) }
            subscriber.finish()
        }
    }
}
