/// Where a session stands in its activation life cycle (POLICY section 2).
public enum SessionState: String, CaseIterable, Hashable, Sendable, Codable {
    case inactive
    case active
    case interrupted
}

/// What a session's output streams hear, the loudest of them (POLICY section 3); `none` when no output stream
/// is running.
public enum OutputSummary: String, CaseIterable, Hashable, Sendable, Codable {
    case audible
    case ducked
    case silent
    case none
}

/// What a session's input streams do; `none` when no input stream is running.
public enum InputSummary: String, CaseIterable, Hashable, Sendable, Codable {
    case capturing
    case muted
    case none
}

/// What a player (section 6b) is doing: `playing` while its output stream runs.
public enum MediaPlayerState: String, CaseIterable, Hashable, Sendable, Codable {
    case playing
    case paused
}

/// Everything a session can be asked about, as it stands now.
public struct SessionSnapshot: Hashable, Sendable {
    public var id: SessionID
    public var appName: String
    public var category: Category
    public var mode: Mode
    /// As reported: implied options included (C3, C5).
    public var options: CategoryOptions
    public var isCall: Bool
    public var isUnaware: Bool
    public var state: SessionState
    /// Why the session is in `state`: the rule and event that put it there.
    public var stateReason: Reason
    public var appState: AppState
    public var output: OutputSummary
    /// Why `output` is what it is; nil when `output` is `none`.
    public var outputReason: Reason?
    public var input: InputSummary
    public var route: Route
    /// The R-rule that chose `route.output`; nil when the category has no output.
    public var routeReason: Reason?
    public var isOtherAudioPlaying: Bool
    public var secondaryAudioShouldBeSilencedHint: Bool
    /// The sessions that caused its interruption, while it is interrupted.
    public var interruptedBy: [SessionID]
    /// Nil unless the session is a player (section 6b).
    public var mediaPlayer: MediaPlayerState?

    /// A snapshot from its parts, for sessions observed elsewhere (a live replay reads them from the daemon).
    public init(
        id: SessionID, appName: String, category: Category, mode: Mode, options: CategoryOptions, isCall: Bool,
        isUnaware: Bool, state: SessionState, stateReason: Reason, appState: AppState, output: OutputSummary,
        outputReason: Reason?, input: InputSummary, route: Route, routeReason: Reason?, isOtherAudioPlaying: Bool,
        secondaryAudioShouldBeSilencedHint: Bool, interruptedBy: [SessionID], mediaPlayer: MediaPlayerState? = nil
    ) {
        self.id = id
        self.appName = appName
        self.category = category
        self.mode = mode
        self.options = options
        self.isCall = isCall
        self.isUnaware = isUnaware
        self.state = state
        self.stateReason = stateReason
        self.appState = appState
        self.output = output
        self.outputReason = outputReason
        self.input = input
        self.route = route
        self.routeReason = routeReason
        self.isOtherAudioPlaying = isOtherAudioPlaying
        self.secondaryAudioShouldBeSilencedHint = secondaryAudioShouldBeSilencedHint
        self.interruptedBy = interruptedBy
        self.mediaPlayer = mediaPlayer
    }
}

extension SessionSnapshot {
    /// Where the session stands: this snapshot without the reasons and the look at the other sessions.
    public var standing: SessionStanding {
        SessionStanding(
            category: category,
            mode: mode,
            options: options,
            state: state,
            appState: appState,
            output: output,
            input: input,
            route: route
        )
    }
}

/// Where a session stands, the part of its snapshot that says what it does rather than why: what the event log
/// records of a session after each event. Unlike a snapshot it is computed from the session alone (no look at
/// the other sessions), so comparing every session's after an event stays cheap among a thousand.
public struct SessionStanding: Hashable, Sendable {
    public var category: Category
    public var mode: Mode
    /// As reported: implied options included (C3, C5).
    public var options: CategoryOptions
    public var state: SessionState
    public var appState: AppState
    public var output: OutputSummary
    public var input: InputSummary
    public var route: Route
}
