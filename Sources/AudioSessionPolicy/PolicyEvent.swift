/// A fact the engine is told. Everything the engine knows arrives as one of these, in order.
public enum PolicyEvent: Hashable, Sendable {
    /// A session appears: an app's client connected, or an unaware app was seen. Starts as C1 says unless the
    /// declaration says otherwise.
    case sessionCreated(SessionID, SessionDeclaration)
    /// A session disappears: its client disconnected. Interruptions it caused end (shouldResume only if it
    /// had already deactivated with notifyOthers).
    case sessionRemoved(SessionID)
    case setCategory(SessionID, Category, mode: Mode = .default, options: CategoryOptions = [])
    case activate(SessionID)
    case deactivate(SessionID, notifyOthers: Bool = false)
    /// A stream starts or restarts (play, record); creates it if new. May activate its session (D5).
    case streamStarted(StreamID, session: SessionID, direction: StreamDirection)
    /// A stream is paused; it stays known.
    case streamPaused(StreamID)
    /// A stream is gone.
    case streamRemoved(StreamID)
    case silentSwitch(SilentSwitch)
    case screenLocked(Bool)
    case appState(SessionID, AppState)
    case portConnected(Port)
    case portDisconnected(Port)
    case outputSelected(Port)
    case outputOverridden(SessionID, SpeakerOverride)
    case mediaServicesLost
    case mediaServicesReset
    case timerFired(TimerID)
    /// A new configuration (a reload): sessions, streams and the device stay; duck level and fade apply to
    /// every stream at once, call exemptions to every session, the grace to timers started from now on, the
    /// rules to unaware apps that appear from now on.
    case configurationChanged(PolicyConfig)
    /// The daemon decided again, after a reload, whether a client's session is exempt from A2 by who the
    /// client is (`SessionDeclaration.callExemptByIdentity`); the session's name no longer counts.
    case callExemptionDecided(SessionID, exempt: Bool)
    /// Section 6b: the daemon found a media-player interface for an unaware app's session after the session
    /// was made (the app opened its stream before it registered its interface): the session is a player from
    /// now on. Changes nothing for a session that is one already or was given up on (P6).
    case playerFound(SessionID)
    /// P6: the player's interface went away (its name vanished from the bus): the session is an ordinary
    /// unaware app from now on, as if it had not answered a pause.
    case playerLost(SessionID)
}

/// Output (playback) or input (capture).
public enum StreamDirection: String, CaseIterable, Hashable, Sendable, Codable {
    case output
    case input
}

/// The Ring/Silent switch.
public enum SilentSwitch: String, CaseIterable, Hashable, Sendable, Codable {
    case ring
    case silent
}

/// Whether an app is in the foreground (A3, A7, O5).
public enum AppState: String, CaseIterable, Hashable, Sendable, Codable {
    case foreground
    case background
}

/// A `playAndRecord` session's own output choice (R5).
public enum SpeakerOverride: String, CaseIterable, Hashable, Sendable, Codable {
    case none
    case speaker
}

/// What is known of a session when it appears.
public struct SessionDeclaration: Hashable, Sendable {
    /// The app's name, as `callExemptApps` lists it.
    public var appName: String
    public var category: Category
    public var mode: Mode
    public var options: CategoryOptions
    /// A telephony or VoIP call (A2, A6, O6).
    public var isCall: Bool
    public var appState: AppState
    /// Set for an unaware app: the properties of its stream, classified by the configured rules (U1). The
    /// category, mode, options and call flag above are then ignored.
    public var unawareStreamProperties: [String: String]?
    /// An unaware app the daemon can pause and play (section 6b): a player. Ignored for an aware app.
    public var isMediaPlayer: Bool
    /// A2 decided by who the app is, not by its name: set by the daemon for a client of its socket, from the
    /// kernel's word on the client's executable and user. Nil: `callExemptApps` names decide (a scenario's
    /// sessions, an unaware app's `application.name`).
    public var callExemptByIdentity: Bool?

    public init(
        appName: String,
        category: Category = .soloAmbient,
        mode: Mode = .default,
        options: CategoryOptions = [],
        isCall: Bool = false,
        appState: AppState = .foreground,
        unawareStreamProperties: [String: String]? = nil,
        isMediaPlayer: Bool = false,
        callExemptByIdentity: Bool? = nil
    ) {
        self.appName = appName
        self.category = category
        self.mode = mode
        self.options = options
        self.isCall = isCall
        self.appState = appState
        self.unawareStreamProperties = unawareStreamProperties
        self.isMediaPlayer = isMediaPlayer
        self.callExemptByIdentity = callExemptByIdentity
    }
}
