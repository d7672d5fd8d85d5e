/// A command from the engine: tell a session something, make a stream sound a certain way, or keep time.
public enum PolicyAction: Hashable, Sendable {
    case notify(SessionID, SessionNotification, Reason)
    /// The stream's verdict changed; carry it out (mute, duck, move to the route's device).
    case setStream(StreamID, StreamVerdict)
    /// Call back with `timerFired` after this many milliseconds.
    case startTimer(TimerID, milliseconds: Int)
    case cancelTimer(TimerID)
    /// P1: pause this player (section 6b). Its stream is already muted; the player has paused once its output
    /// stream stops running (`streamPaused` or `streamRemoved`). A timer of `playerTimeoutMs` comes with it: if it
    /// fires first, the player is treated as an ordinary unaware app (P6).
    case pausePlayer(SessionID, Reason)
    /// P3: play this player again; its session is already active. It has played once its output stream runs.
    case playPlayer(SessionID, Reason)
}

/// What a session is told (POLICY section 2, 4 and 5).
public enum SessionNotification: Hashable, Sendable {
    case interruptionBegan
    case interruptionEnded(shouldResume: Bool)
    case routeChange(RouteChangeReason, previous: Route)
    case silenceSecondaryAudioHint(begins: Bool)
    case mediaServicesWereLost
    case mediaServicesWereReset
}

/// Why a session's route changed.
public enum RouteChangeReason: String, CaseIterable, Hashable, Sendable, Codable {
    case newDeviceAvailable
    case oldDeviceUnavailable
    case categoryChange
    case override
}

/// Where a session's sound goes and comes from; nil where its category has no output or no input.
public struct Route: Hashable, Sendable {
    public var output: Port?
    public var input: Port?
    public init(output: Port?, input: Port?) {
        self.output = output
        self.input = input
    }
}

/// How a stream is to sound, where, and why.
public struct StreamVerdict: Hashable, Sendable {
    public var level: Level
    /// The output port of an output stream's session, the input port of an input stream's; nil when none.
    public var port: Port?
    public var reason: Reason

    public init(level: Level, port: Port?, reason: Reason) {
        self.level = level
        self.port = port
        self.reason = reason
    }

    /// How loud, from the policy's side; the user's own volume and mute are the daemon's to keep.
    public enum Level: Hashable, Sendable {
        case audible
        /// Scaled by `gain` (linear), reached over `fadeMilliseconds`.
        case ducked(gain: Double, fadeMilliseconds: Int)
        case silent
        case capturing
        case muted
    }

    /// What the daemon must carry out, without the reason.
    public var effect: StreamEffect { StreamEffect(level: level, port: port) }
}

/// The part of a verdict the daemon carries out: how loud, and where.
public struct StreamEffect: Hashable, Sendable {
    public var level: StreamVerdict.Level
    public var port: Port?
    public init(level: StreamVerdict.Level, port: Port?) {
        self.level = level
        self.port = port
    }
}
