import AudioSessionPolicy

/// A notification pushed to a subscribed client: `{"event": "interruption", "type": "began", ...}`.
public struct Event: Sendable, Equatable, Codable {
    public var event: Kind
    /// `began`/`ended` for interruptions, `begin`/`end` for the hint.
    public var type: String?
    public var shouldResume: Bool?
    /// For `routeChange`: why the route changed.
    public var reason: RouteChangeReason?
    public var previousRoute: RouteBody?
    public var currentRoute: RouteBody?
    /// Why, in words: "interrupted by phone (A6)".
    public var because: String?
    /// For `status` events (`watch`): the whole daemon.
    public var status: StatusBody?
    /// For `streamVerdict`: the client's own stream number (from `startStream`) and how it must sound.
    public var stream: Int?
    /// `audible`, `ducked`, `silent`, `capturing` or `muted`.
    public var verdict: String?
    /// For `ducked`: the linear gain to apply to the samples, and how long the fade to it takes.
    public var gain: Double?
    public var fadeMilliseconds: Int?

    public enum Kind: String, Sendable, Codable, CaseIterable {
        case interruption
        case routeChange
        case silenceSecondaryAudioHint
        case mediaServicesWereLost
        case mediaServicesWereReset
        case status
        /// Sent for streams a client reported itself (`startStream`): it applies the verdict to its samples.
        case streamVerdict
    }

    public init(
        _ event: Kind, type: String? = nil, shouldResume: Bool? = nil, reason: RouteChangeReason? = nil,
        previousRoute: RouteBody? = nil, currentRoute: RouteBody? = nil, because: String? = nil,
        status: StatusBody? = nil
    ) {
        self.event = event
        self.type = type
        self.shouldResume = shouldResume
        self.reason = reason
        self.previousRoute = previousRoute
        self.currentRoute = currentRoute
        self.because = because
        self.status = status
    }
}
