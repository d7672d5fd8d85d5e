/// The tunable part of the policy. `PolicyConfig.standard` equals what `Config/policy.yaml` ships (a test keeps
/// the two the same), so the engine works with no file at all.
public struct PolicyConfig: Hashable, Sendable {
    /// O7: the linear gain of a ducked stream.
    public var duckLevel: Double
    /// O7: how long the fade to `duckLevel` takes.
    public var duckFadeMs: Int
    /// U2: how long an unaware app's session stays active after its last stream paused or went away.
    public var graceMs: Int
    /// P6: how long a player has to pause when the daemon asks; one that takes longer is muted instead.
    public var playerTimeoutMs: Int
    /// A2: apps that may activate during a call (a screen reader, say).
    public var callExemptApps: [String]
    /// U1: how unaware apps are classified; the first rule that matches wins.
    public var rules: [ClassificationRule]

    public init(
        duckLevel: Double = 0.25,
        duckFadeMs: Int = 200,
        graceMs: Int = 500,
        playerTimeoutMs: Int = 250,
        callExemptApps: [String] = [],
        rules: [ClassificationRule] = ClassificationRule.standard
    ) {
        self.duckLevel = duckLevel
        self.duckFadeMs = duckFadeMs
        self.graceMs = graceMs
        self.playerTimeoutMs = playerTimeoutMs
        self.callExemptApps = callExemptApps
        self.rules = rules
    }

    /// The shipped defaults.
    public static let standard = PolicyConfig()
}

/// One classification rule for unaware apps (POLICY section 6): stream properties to match, and the session
/// they make.
public struct ClassificationRule: Hashable, Sendable {
    /// Property name to the values that match it (any one of them, compared without regard to case). A rule
    /// with no properties matches every stream.
    public var match: [String: [String]]
    public var category: Category
    public var mode: Mode
    public var options: CategoryOptions
    public var isCall: Bool
    /// Transient audio ends with notifyOthers, so what it interrupted may resume.
    public var endsWithNotifyOthers: Bool

    public init(
        match: [String: [String]],
        category: Category,
        mode: Mode = .default,
        options: CategoryOptions = [],
        isCall: Bool = false,
        endsWithNotifyOthers: Bool = false
    ) {
        self.match = match
        self.category = category
        self.mode = mode
        self.options = options
        self.isCall = isCall
        self.endsWithNotifyOthers = endsWithNotifyOthers
    }

    /// The stream properties the rules may match on. `stream.direction` (`output` or `input`) is not a sound
    /// server property: the daemon sets it, so that capture can be told from playback.
    public static let matchableProperties = [
        "media.role", "application.name", "application.process.binary", "application.id", "stream.direction",
    ]

    /// Whether a stream with these properties matches.
    public func matches(_ properties: [String: String]) -> Bool {
        match.allSatisfy { key, values in
            guard let value = properties[key]?.lowercased() else { return false }
            return values.contains { $0.lowercased() == value }
        }
    }

    /// POLICY section 6's defaults.
    public static let standard: [ClassificationRule] = [
        .init(match: ["media.role": ["phone"]], category: .playAndRecord, isCall: true, endsWithNotifyOthers: true),
        .init(
            match: ["stream.direction": ["input"]],
            category: .playAndRecord,
            options: [.mixWithOthers, .defaultToSpeaker]
        ),
        .init(match: ["media.role": ["music", "video"]], category: .playback),
        .init(match: ["media.role": ["game"]], category: .ambient),
        .init(match: ["media.role": ["event", "notification"]], category: .ambient, endsWithNotifyOthers: true),
        .init(match: ["media.role": ["alarm"]], category: .playback, endsWithNotifyOthers: true),
        .init(
            match: ["media.role": ["a11y", "navigation", "speech"]],
            category: .playback,
            options: [.duckOthers],
            endsWithNotifyOthers: true
        ),
        .init(match: [:], category: .playback, options: [.mixWithOthers]),
    ]
}
