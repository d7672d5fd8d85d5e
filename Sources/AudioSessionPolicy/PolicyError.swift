/// Why a request failed, with the codes POLICY.md and the scenario files use.
public enum PolicyErrorCode: String, CaseIterable, Hashable, Sendable, Codable {
    /// An illegal option, mode or port for the session's category (C6, R3, R5), or an unknown session.
    case badParam
    /// A call is active and the session is not a call nor exempt (A2).
    case insufficientPriority
    /// A nonmixable session in the background cannot interrupt another app (A3).
    case cannotInterruptOthers
    /// The session was deactivated although a stream of it was running (D2).
    case isBusy
    /// The sound server is gone: nothing can be activated until it is back (M1).
    case mediaServicesFailed
}

/// A failed request: its code, and the rule and message that explain it.
public struct PolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: PolicyErrorCode
    public var reason: Reason
    public var message: String

    public init(_ code: PolicyErrorCode, _ reason: Reason, _ message: String) {
        self.code = code
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(code.rawValue) (\(reason.rule.rawValue)): \(message)" }
}
