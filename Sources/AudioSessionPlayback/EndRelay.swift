import Synchronization

/// Carries a pump's "the end was reached" to its transport, which is made after the pump (the transport needs
/// the pump; the pump's thread may reach the end before the transport exists, and then waits for it).
final class EndRelay: Sendable {
    private struct State {
        /// Weak: the transport owns the pump, whose thread holds this relay.
        weak var transport: SessionTransport?
        var finished = ""
        var early: [(any Error)?] = []
    }

    private let state = Mutex(State())

    func connect(_ transport: SessionTransport, finished: String) {
        let early = state.withLock { state in
            state.transport = transport
            state.finished = finished
            defer { state.early.removeAll() }
            return state.early
        }
        for error in early { deliver(error, to: transport, finished: finished) }
    }

    func fire(_ error: (any Error)?) {
        let target = state.withLock { state -> (SessionTransport, String)? in
            guard let transport = state.transport else {
                state.early.append(error)
                return nil
            }
            return (transport, state.finished)
        }
        if let (transport, finished) = target { deliver(error, to: transport, finished: finished) }
    }

    private func deliver(_ error: (any Error)?, to transport: SessionTransport, finished: String) {
        if let error { transport.publish(.failed("\(error)")) }
        transport.handleLater(.reachedEnd, because: error.map { "stopped by an error: \($0)" } ?? finished)
    }
}
