import AudioSessionPolicy
import AudioSessionProtocol

extension ControlConnection {
    /// The events that have arrived by now, oldest first, without waiting for more.
    func drainEvents() throws -> [Event] {
        var events: [Event] = []
        while let event = try nextEvent(timeout: .zero) { events.append(event) }
        return events
    }
}

extension Event {
    /// The session notification this event carries; nil for events that are not one (`status`, `streamVerdict`).
    var notification: SessionNotification? {
        switch event {
        case .interruption:
            if type == "began" { return .interruptionBegan }
            return .interruptionEnded(shouldResume: shouldResume ?? false)
        case .routeChange:
            guard let reason else { return nil }
            let previous = Route(output: previousRoute?.output, input: previousRoute?.input)
            return .routeChange(reason, previous: previous)
        case .silenceSecondaryAudioHint: return .silenceSecondaryAudioHint(begins: type == "begin")
        case .mediaServicesWereLost: return .mediaServicesWereLost
        case .mediaServicesWereReset: return .mediaServicesWereReset
        case .status, .streamVerdict: return nil
        }
    }
}
