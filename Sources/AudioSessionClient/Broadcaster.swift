import Locking

/// Hands each value to every stream made from it, in order; many consumers may listen at once. A stream is
/// registered when it is made, so it sees everything sent after that, and ends when `finish()` is called.
final class Broadcaster<Element: Sendable>: Sendable {
    private struct Sink: Sendable {
        let deliver: @Sendable (Element) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State: Sendable {
        var sinks: [Int: Sink] = [:]
        var nextSink = 0
        var isFinished = false
    }

    private let state = Locked(State())

    /// A new stream of the values `transform` keeps (all of them by default).
    func stream<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output?) -> AsyncStream<Output> {
        let (stream, continuation) = AsyncStream<Output>.makeStream()
        let sink = Sink(
            deliver: { element in if let output = transform(element) { continuation.yield(output) } },
            finish: { continuation.finish() }
        )
        let key: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            let key = state.nextSink
            state.nextSink += 1
            state.sinks[key] = sink
            return key
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.sinks.removeValue(forKey: key) }
        }
        return stream
    }

    /// Sends `element` to every stream. Yielding never blocks: streams buffer what their consumer has not read.
    /// Delivered under the lock so that two senders cannot interleave one consumer's order.
    func send(_ element: Element) {
        state.withLock { state in
            for key in state.sinks.keys.sorted() { state.sinks[key]?.deliver(element) }
        }
    }

    /// Ends every stream, and every stream made from now on.
    func finish() {
        let sinks = state.withLock { state in
            state.isFinished = true
            defer { state.sinks.removeAll() }
            return Array(state.sinks.values)
        }
        for sink in sinks { sink.finish() }
    }
}
