import AudioSessionPolicy

/// One line from the daemon: the reply to a request, or an event the client subscribed to.
public enum ServerMessage: Sendable, Equatable, Codable {
    case reply(Reply)
    case event(Event)

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: Probe.self)
        self = keys.contains(.event) ? .event(try Event(from: decoder)) : .reply(try Reply(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .reply(let reply): try reply.encode(to: encoder)
        case .event(let event): try event.encode(to: encoder)
        }
    }

    private enum Probe: String, CodingKey { case event }
}

/// The answer to one request: `{"id": 1, "ok": true, "result": {...}}` or `{"id": 1, "ok": false, "error": {...}}`.
/// Its outcome is one of the two, so a reply that succeeds with an error, or fails without one, cannot be made.
public struct Reply: Sendable, Equatable, Codable {
    public var id: RequestID?
    public var outcome: Outcome

    public enum Outcome: Sendable, Equatable {
        case success(ReplyResult?)
        /// A failed request may still report the caller's session as it is afterwards (`state`).
        case failure(ErrorBody, ReplyResult?)
    }

    public static func success(_ id: RequestID?, _ result: ReplyResult? = nil) -> Reply {
        Reply(id: id, outcome: .success(result))
    }

    public static func failure(_ id: RequestID?, _ error: ErrorBody, _ result: ReplyResult? = nil) -> Reply {
        Reply(id: id, outcome: .failure(error, result))
    }

    /// The wire's `ok`.
    public var ok: Bool {
        if case .success = outcome { return true }
        return false
    }

    public var error: ErrorBody? {
        if case .failure(let error, _) = outcome { return error }
        return nil
    }

    public var result: ReplyResult? {
        switch outcome {
        case .success(let result), .failure(_, let result): result
        }
    }

    private enum CodingKeys: String, CodingKey { case id, ok, error, result }

    public init(id: RequestID?, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        id = try fields.decodeIfPresent(RequestID.self, forKey: .id)
        let result = try fields.decodeIfPresent(ReplyResult.self, forKey: .result)
        if try fields.decode(Bool.self, forKey: .ok) {
            outcome = .success(result)
        } else {
            outcome = .failure(try fields.decode(ErrorBody.self, forKey: .error), result)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encodeIfPresent(id, forKey: .id)
        try fields.encode(ok, forKey: .ok)
        try fields.encodeIfPresent(error, forKey: .error)
        try fields.encodeIfPresent(result, forKey: .result)
    }
}

/// What went wrong: a stable code (a policy code such as `badParam`, or a protocol code such as
/// `unknownField`), a message a person can act on, and where it applies.
public struct ErrorBody: Sendable, Equatable, Codable, Error {
    public var code: String
    public var message: String
    /// The policy rule that refused the request, e.g. `A2`.
    public var rule: Rule?
    /// The request field at fault.
    public var field: String?
    /// True when the request took effect although it reports an error (`isBusy`, POLICY D2).
    public var tookEffect: Bool?

    public init(code: String, message: String, rule: Rule? = nil, field: String? = nil, tookEffect: Bool? = nil) {
        self.code = code
        self.message = message
        self.rule = rule
        self.field = field
        self.tookEffect = tookEffect
    }
}

/// The result of a successful request; which fields are set depends on the operation.
public struct ReplyResult: Sendable, Equatable, Codable {
    /// `hello`: the caller's session number; `audiosession.id` on a stream names this session.
    public var session: Int?
    /// `getState`, and every session request: the caller's session afterwards.
    public var state: SessionStateBody?
    /// `status`.
    public var status: StatusBody?
    /// `explain`: why a session is as it is, one sentence per line.
    public var explanation: [String]?
    /// `hello`: true when the daemon enforces verdicts on sound-server streams itself (it runs with a sound
    /// server); false with `--no-sound-server`, where a player applies ducking gain to its own samples.
    public var soundServer: Bool?
    /// `decisions`: the last decisions, oldest first.
    public var decisions: [DecisionBody]?

    public init(
        session: Int? = nil, state: SessionStateBody? = nil, status: StatusBody? = nil, explanation: [String]? = nil,
        soundServer: Bool? = nil, decisions: [DecisionBody]? = nil
    ) {
        self.decisions = decisions
        self.session = session
        self.state = state
        self.status = status
        self.explanation = explanation
        self.soundServer = soundServer
    }
}

/// One decision of the daemon, as its log line has it: what it decided and why (the rule in parentheses).
public struct DecisionBody: Sendable, Equatable, Codable {
    /// Counts the daemon's decisions from 1 since it started: a reader can tell the ones it has seen.
    public var number: Int
    public var text: String

    public init(number: Int, text: String) {
        self.number = number
        self.text = text
    }
}

/// A session as a client sees it.
public struct SessionStateBody: Sendable, Equatable, Codable {
    public var session: Int
    public var app: String
    public var category: Category
    public var mode: Mode
    /// As reported: implied options included.
    public var options: [String]
    public var call: Bool
    public var unaware: Bool
    public var state: SessionState
    public var appState: AppState
    public var output: OutputSummary
    public var input: InputSummary
    public var currentRoute: RouteBody
    public var isOtherAudioPlaying: Bool
    public var secondaryAudioShouldBeSilencedHint: Bool
    /// Why the session is in its state, e.g. "interrupted by phone (A6)".
    public var because: String
    /// The MPRIS name of the player the daemon drives for this unaware app (POLICY section 6b), once it has
    /// matched one to its streams; absent otherwise.
    public var player: String?

    public init(
        session: Int, app: String, category: Category, mode: Mode, options: [String], call: Bool, unaware: Bool,
        state: SessionState, appState: AppState, output: OutputSummary, input: InputSummary, currentRoute: RouteBody,
        isOtherAudioPlaying: Bool, secondaryAudioShouldBeSilencedHint: Bool, because: String, player: String? = nil
    ) {
        self.session = session
        self.app = app
        self.category = category
        self.mode = mode
        self.options = options
        self.call = call
        self.unaware = unaware
        self.state = state
        self.appState = appState
        self.output = output
        self.input = input
        self.currentRoute = currentRoute
        self.isOtherAudioPlaying = isOtherAudioPlaying
        self.secondaryAudioShouldBeSilencedHint = secondaryAudioShouldBeSilencedHint
        self.because = because
        self.player = player
    }
}

/// Where a session's sound goes and comes from.
public struct RouteBody: Sendable, Equatable, Codable {
    public var output: Port?
    public var input: Port?
    public init(output: Port?, input: Port?) {
        self.output = output
        self.input = input
    }
}

/// The whole daemon at a glance (`status`, and `watch` events).
public struct StatusBody: Sendable, Equatable, Codable {
    public var silentSwitch: SilentSwitch
    public var screenLocked: Bool
    /// Whether the sound server is there.
    public var mediaServicesAvailable: Bool
    /// Available ports, in connection order.
    public var outputs: [Port]
    public var inputs: [Port]
    public var selectedOutput: Port?
    public var sessions: [SessionStateBody]
    public var streams: [StreamBody]
    /// The system volume (linear, 0 to 1) on the ALSA mixer control; only when the daemon runs one.
    public var volume: Double?
    /// Whether the daemon holds the mixer control muted (the silent switch); only when it runs one.
    public var mixerMuted: Bool?

    public init(
        silentSwitch: SilentSwitch, screenLocked: Bool, mediaServicesAvailable: Bool, outputs: [Port], inputs: [Port],
        selectedOutput: Port?, sessions: [SessionStateBody], streams: [StreamBody], volume: Double? = nil,
        mixerMuted: Bool? = nil
    ) {
        self.volume = volume
        self.mixerMuted = mixerMuted
        self.silentSwitch = silentSwitch
        self.screenLocked = screenLocked
        self.mediaServicesAvailable = mediaServicesAvailable
        self.outputs = outputs
        self.inputs = inputs
        self.selectedOutput = selectedOutput
        self.sessions = sessions
        self.streams = streams
    }
}

/// One stream and what the policy makes of it.
public struct StreamBody: Sendable, Equatable, Codable {
    public var stream: Int
    public var session: Int
    public var direction: StreamDirection
    public var running: Bool
    /// `audible`, `ducked`, `silent`, `capturing` or `muted`.
    public var verdict: String
    /// For `ducked`: the linear gain.
    public var gain: Double?
    public var port: Port?
    public var because: String
    /// Where the stream lives: `pulse sink-input 12`, `client stream 3`.
    public var origin: String

    public init(
        stream: Int, session: Int, direction: StreamDirection, running: Bool, verdict: String, gain: Double?,
        port: Port?, because: String, origin: String
    ) {
        self.stream = stream
        self.session = session
        self.direction = direction
        self.running = running
        self.verdict = verdict
        self.gain = gain
        self.port = port
        self.because = because
        self.origin = origin
    }
}
