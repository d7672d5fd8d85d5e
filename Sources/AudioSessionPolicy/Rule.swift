/// The numbered rules of POLICY.md, and this engine's own for the unaware apps of its section 6 (U1-U3, see
/// docs/POLICY-NOTES.md). Every decision names the rule that made it.
public enum Rule: String, CaseIterable, Hashable, Sendable, Codable {
    case C1, C2, C3, C4, C5, C6, C7
    case A1, A2, A3, A4, A5, A6, A7
    case D1, D2, D3, D4, D5, D6
    case O1, O2, O3, O4, O5, O6, O7, O8
    case R1, R2, R3, R4, R5, R6, R7
    case S1, M1
    /// Players the daemon can pause (section 6b).
    case P1, P2, P3, P4, P5, P6
    /// An unaware app's session is classified by the configured rules.
    case U1
    /// An unaware app's session deactivates once its last stream has been paused or gone for `graceMs`.
    case U2
    /// An unaware app's session is activated again when its interruption ends with shouldResume.
    case U3

    /// The rules POLICY.md numbers; U1-U3 are this engine's names for section 6.
    public static let numberedInPolicy: [Rule] = allCases.filter { !$0.rawValue.hasPrefix("U") }
}

/// Why something happened: the rule that decided it, the event that set it off, and the session or port it
/// involved, so that a person can be told "music is silent: interrupted by phone (A6) at step 4".
public struct Reason: Hashable, Sendable {
    public var rule: Rule
    /// The event that made this true, or nil when it has held from the start.
    public var event: EventNumber?
    /// The other session involved: the interrupter, the ducker, the recorder.
    public var session: SessionID?
    /// The port involved: the one connected, lost, selected or routed to.
    public var port: Port?

    public init(_ rule: Rule, event: EventNumber? = nil, session: SessionID? = nil, port: Port? = nil) {
        self.rule = rule
        self.event = event
        self.session = session
        self.port = port
    }
}
