/// Puts the engine's reasons into words a person can act on: "interrupted by phone (A6) at step 4".
public struct Explainer: Sendable {
    private let nameOf: @Sendable (SessionID) -> String
    private let whenOf: @Sendable (EventNumber) -> String?

    /// An explainer that names sessions with `name` and says when an event happened with `when` (" at step 4";
    /// nil to say nothing).
    public init(name: @escaping @Sendable (SessionID) -> String, when: @escaping @Sendable (EventNumber) -> String?) {
        self.nameOf = name
        self.whenOf = when
    }

    /// The name this explainer gives `session`.
    public func name(of session: SessionID) -> String {
        nameOf(session)
    }

    /// One reason as a phrase.
    public func describe(_ reason: Reason) -> String {
        let other = reason.session.map(nameOf) ?? "another session"
        let port = reason.port?.rawValue ?? "a port"
        let phrase =
            switch reason.rule {
            // C7 names another session when a category change made it interrupt others, none for the session's
            // own route changing with its category.
            case .C7 where reason.session == nil: "its category changed"
            case .A4, .A5, .A6, .C7: "interrupted by \(other)"
            case .D4: "interrupted; its interrupter was interrupted, so it now waits on \(other)"
            case .D3: "its interruption by \(other) ended"
            case .D1: "deactivated"
            case .D2: "deactivated with a stream still running"
            case .D5: "activated by starting a stream"
            case .A1: "activated"
            case .A2: "a call (\(other)) is active"
            case .A3: "in the background and \(other) is active and nonmixable"
            case .C1: "not activated yet"
            case .C4, .C5, .C6: "illegal category, mode or option"
            case .U1: "an unaware app, classified by the rules, not playing yet"
            case .U2: "its grace period after the last stream ended ran out"
            case .U3: "resumed by the daemon after its interruption ended"
            case .M1: "the sound server was lost or reset"
            case .P1 where reason.port != nil: "paused by the daemon: \(port) was disconnected"
            case .P1: "paused by the daemon: interrupted by \(other)"
            case .P3: "played again by the daemon after its interruption by \(other) ended"
            case .O1: "its category has no output (for a recording: no input)"
            case .R4 where reason.event != nil: "\(port) was disconnected"
            case .O4: "the silent switch is on"
            case .O5: reason.session == nil ? "the screen is locked" : "its app is in the background"
            case .O6: "\(other) is recording"
            case .O7: "ducked by \(other)"
            case .O8: "nothing silences or ducks it"
            case .R1: "default route \(port)"
            case .R2: "the most recently connected allowed port, \(port)"
            case .R3: "selected by the user: \(port)"
            case .R5: "speaker override"
            case .R6: "input from \(port)"
            case .A7: "the hint follows \(other), another app's nonmixable session with output"
            default: "rule \(reason.rule.rawValue)"
            }
        return "\(phrase) (\(reason.rule.rawValue))" + when(reason.event)
    }

    private func when(_ event: EventNumber?) -> String {
        event.flatMap(whenOf) ?? ""
    }

    /// Why a session is as it is: its state, its output and its route, one sentence each.
    public func explain(_ snapshot: SessionSnapshot) -> [String] {
        let name = nameOf(snapshot.id)
        var lines = ["\(name) is \(snapshot.state.rawValue): \(describe(snapshot.stateReason))"]
        if let reason = snapshot.outputReason {
            lines.append("\(name) output is \(snapshot.output.rawValue): \(describe(reason))")
        }
        if let reason = snapshot.routeReason, let port = snapshot.route.output {
            lines.append("\(name) route is \(port.rawValue): \(describe(reason))")
        }
        return lines
    }

    /// A notification in the words scenario files use: "interruption ended shouldResume=true".
    public static func text(of notification: SessionNotification) -> String {
        switch notification {
        case .interruptionBegan: "interruption began"
        case .interruptionEnded(let shouldResume): "interruption ended shouldResume=\(shouldResume)"
        case .routeChange(let reason, _): "routeChange \(reason.rawValue)"
        case .silenceSecondaryAudioHint(let begins): "silenceSecondaryAudioHint \(begins ? "begin" : "end")"
        case .mediaServicesWereLost: "mediaServices lost"
        case .mediaServicesWereReset: "mediaServices reset"
        }
    }
}
