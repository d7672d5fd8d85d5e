import AudioSessionPolicy

/// One line of the event log (`events.jsonl`): a checkpoint (the daemon started, or a new log file began)
/// or an engine event the daemon handled, with what came of it. `audiosessionctl journal export` turns a run of
/// them into a scenario.
public struct JournalRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// The daemon started: a new engine, with this device and configuration and no session.
        case start
        /// A new log file began: the state the engine is in, for an export from there.
        case checkpoint
        case event
    }

    public var kind: Kind
    /// Wall-clock time, seconds since 1970.
    public var time: Double

    // start and checkpoint
    public var device: JournalDeviceState?
    public var config: JournalConfig?
    /// checkpoint: the sessions there are, as declared, with their state and running streams.
    public var sessions: [JournalSessionRecord]?
    /// checkpoint: the engine's timers that have not fired, with the milliseconds they had when started.
    public var timers: [JournalTimer]?

    // event
    public var event: JournalEvent?
    public var error: String?
    public var notifications: [JournalNotification]?
    public var timersStarted: [JournalTimer]?
    public var timersCancelled: [Int]?
    /// The sessions whose state changed with this event, as they are after it.
    public var states: [JournalSessionState]?

    public init(kind: Kind, time: Double) {
        self.kind = kind
        self.time = time
    }
}

/// The device part of the engine: ports in connection order, selection, switch, lock.
public struct JournalDeviceState: Codable, Sendable, Equatable {
    public var outputs: [Port]
    public var inputs: [Port]
    public var selection: Port?
    public var silentSwitch: SilentSwitch
    public var screenLocked: Bool

    /// The device as the engine has it now.
    public init(
        outputs: [Port],
        inputs: [Port],
        selection: Port? = nil,
        silentSwitch: SilentSwitch,
        screenLocked: Bool
    ) {
        self.outputs = outputs
        self.inputs = inputs
        self.selection = selection
        self.silentSwitch = silentSwitch
        self.screenLocked = screenLocked
    }
}

/// The policy configuration, as a scenario's `config:` takes it.
public struct JournalConfig: Codable, Sendable, Equatable {
    public var duckLevel: Double
    public var duckFadeMs: Int
    public var graceMs: Int
    public var callExemptApps: [String]
    public var rules: [JournalRule]

    public struct JournalRule: Codable, Sendable, Equatable {
        public var match: [String: [String]]
        public var category: Category
        public var mode: Mode
        public var options: [String]
        public var call: Bool
        public var notifyOthers: Bool
    }

    public init(_ config: PolicyConfig) {
        duckLevel = config.duckLevel
        duckFadeMs = config.duckFadeMs
        graceMs = config.graceMs
        callExemptApps = config.callExemptApps
        rules = config.rules.map {
            JournalRule(
                match: $0.match,
                category: $0.category,
                mode: $0.mode,
                options: $0.options.names,
                call: $0.isCall,
                notifyOthers: $0.endsWithNotifyOthers
            )
        }
    }

    public var policyConfig: PolicyConfig {
        PolicyConfig(
            duckLevel: duckLevel,
            duckFadeMs: duckFadeMs,
            graceMs: graceMs,
            callExemptApps: callExemptApps,
            rules: rules.map {
                ClassificationRule(
                    match: $0.match,
                    category: $0.category,
                    mode: $0.mode,
                    options: CategoryOptions(names: $0.options),
                    isCall: $0.call,
                    endsWithNotifyOthers: $0.notifyOthers
                )
            }
        )
    }
}

/// A session as it was declared when it appeared, with the daemon's name for it.
public struct JournalDeclaration: Codable, Sendable, Equatable {
    public var name: String
    public var appName: String
    public var category: Category
    public var mode: Mode
    public var options: [String]
    public var call: Bool
    public var appState: AppState
    /// An unaware app's stream properties (classified by the rules).
    public var stream: [String: String]?
    /// A2 as the daemon decided it by who the client is (its executable and user); nil: by name.
    public var callExempt: Bool?

    public init(name: String, _ declaration: SessionDeclaration) {
        self.name = name
        appName = declaration.appName
        category = declaration.category
        mode = declaration.mode
        options = declaration.options.names
        call = declaration.isCall
        appState = declaration.appState
        stream = declaration.unawareStreamProperties
        callExempt = declaration.callExemptByIdentity
    }
}

/// An engine event (`PolicyEvent`), by name with its arguments.
public struct JournalEvent: Codable, Sendable, Equatable {
    public var type: String
    public var session: Int?
    public var stream: Int?
    public var direction: StreamDirection?
    public var category: Category?
    public var mode: Mode?
    public var options: [String]?
    public var notifyOthers: Bool?
    public var silentSwitch: SilentSwitch?
    public var locked: Bool?
    public var appState: AppState?
    public var port: Port?
    public var speakerOverride: SpeakerOverride?
    public var timer: Int?
    public var declaration: JournalDeclaration?
    public var config: JournalConfig?
    /// `callExemptionDecided`: the daemon's new word on the session's A2 exemption.
    public var exempt: Bool?

    public init(type: String) { self.type = type }

    /// `name` is the daemon's name for the session an event creates.
    public init(_ event: PolicyEvent, name: String? = nil) {
        switch event {
        case .sessionCreated(let id, let declaration):
            self.init(type: "sessionCreated")
            session = id.rawValue
            self.declaration = JournalDeclaration(name: name ?? declaration.appName, declaration)
        case .sessionRemoved(let id):
            self.init(type: "sessionRemoved")
            session = id.rawValue
        case .setCategory(let id, let category, let mode, let options):
            self.init(type: "setCategory")
            session = id.rawValue
            self.category = category
            self.mode = mode
            self.options = options.names
        case .activate(let id):
            self.init(type: "activate")
            session = id.rawValue
        case .deactivate(let id, let notifyOthers):
            self.init(type: "deactivate")
            session = id.rawValue
            self.notifyOthers = notifyOthers
        case .streamStarted(let id, let owner, let direction):
            self.init(type: "streamStarted")
            stream = id.rawValue
            session = owner.rawValue
            self.direction = direction
        case .streamPaused(let id):
            self.init(type: "streamPaused")
            stream = id.rawValue
        case .streamRemoved(let id):
            self.init(type: "streamRemoved")
            stream = id.rawValue
        case .silentSwitch(let position):
            self.init(type: "silentSwitch")
            silentSwitch = position
        case .screenLocked(let locked):
            self.init(type: "screenLocked")
            self.locked = locked
        case .appState(let id, let state):
            self.init(type: "appState")
            session = id.rawValue
            appState = state
        case .portConnected(let port):
            self.init(type: "portConnected")
            self.port = port
        case .portDisconnected(let port):
            self.init(type: "portDisconnected")
            self.port = port
        case .outputSelected(let port):
            self.init(type: "outputSelected")
            self.port = port
        case .outputOverridden(let id, let override):
            self.init(type: "outputOverridden")
            session = id.rawValue
            speakerOverride = override
        case .mediaServicesLost: self.init(type: "mediaServicesLost")
        case .mediaServicesReset: self.init(type: "mediaServicesReset")
        case .timerFired(let timer):
            self.init(type: "timerFired")
            self.timer = timer.rawValue
        case .configurationChanged(let config):
            self.init(type: "configurationChanged")
            self.config = JournalConfig(config)
        case .callExemptionDecided(let id, let exempt):
            self.init(type: "callExemptionDecided")
            session = id.rawValue
            self.exempt = exempt
        case .playerFound(let id):
            self.init(type: "playerFound")
            session = id.rawValue
        case .playerLost(let id):
            self.init(type: "playerLost")
            session = id.rawValue
        }
    }
}

/// A notification the engine sent.
public struct JournalNotification: Codable, Sendable, Equatable {
    public var session: Int
    /// `interruptionBegan`, `interruptionEnded`, `routeChange`, `silenceSecondaryAudioHint`,
    /// `mediaServicesLost`, `mediaServicesReset`.
    public var type: String
    public var shouldResume: Bool?
    public var reason: RouteChangeReason?
    public var begins: Bool?

    public init(session: SessionID, _ notification: SessionNotification) {
        self.session = session.rawValue
        switch notification {
        case .interruptionBegan: type = "interruptionBegan"
        case .interruptionEnded(let shouldResume):
            type = "interruptionEnded"
            self.shouldResume = shouldResume
        case .routeChange(let reason, _):
            type = "routeChange"
            self.reason = reason
        case .silenceSecondaryAudioHint(let begins):
            type = "silenceSecondaryAudioHint"
            self.begins = begins
        case .mediaServicesWereLost: type = "mediaServicesLost"
        case .mediaServicesWereReset: type = "mediaServicesReset"
        }
    }
}

/// A session as the engine reports it, in the terms a scenario's `expect:` checks.
public struct JournalSessionState: Codable, Sendable, Equatable {
    public var session: Int
    public var state: SessionState
    public var output: OutputSummary
    public var input: InputSummary
    public var route: Port?
    public var inputRoute: Port?
    public var category: Category
    public var mode: Mode
    public var options: [String]
    public var appState: AppState

    public init(_ snapshot: SessionSnapshot) {
        self.init(snapshot.id, snapshot.standing)
    }

    public init(_ id: SessionID, _ standing: SessionStanding) {
        session = id.rawValue
        state = standing.state
        output = standing.output
        input = standing.input
        route = standing.route.output
        inputRoute = standing.route.input
        category = standing.category
        mode = standing.mode
        options = standing.options.names
        appState = standing.appState
    }
}

/// A session at a checkpoint.
public struct JournalSessionRecord: Codable, Sendable, Equatable {
    public var session: Int
    public var declaration: JournalDeclaration
    public var state: JournalSessionState
    /// Its streams: number, direction, whether running.
    public var streams: [JournalStream]

    /// A session at a checkpoint, as declared, in its state, with its streams.
    public init(session: Int, declaration: JournalDeclaration, state: JournalSessionState, streams: [JournalStream]) {
        self.session = session
        self.declaration = declaration
        self.state = state
        self.streams = streams
    }
}

public struct JournalStream: Codable, Sendable, Equatable {
    public var stream: Int
    public var direction: StreamDirection
    public var running: Bool

    /// Stream `stream` of a session at a checkpoint.
    public init(stream: Int, direction: StreamDirection, running: Bool) {
        self.stream = stream
        self.direction = direction
        self.running = running
    }
}

public struct JournalTimer: Codable, Sendable, Equatable {
    public var timer: Int
    public var milliseconds: Int
    /// checkpoint: when it was started (wall clock, seconds since 1970), if known.
    public var startedAt: Double?

    public init(timer: Int, milliseconds: Int, startedAt: Double? = nil) {
        self.timer = timer
        self.milliseconds = milliseconds
        self.startedAt = startedAt
    }
}

extension CategoryOptions {
    /// The options with these names (unknown names are left out).
    init(names: [String]) {
        self = names.reduce(into: CategoryOptions()) { set, name in
            if let option = CategoryOptions(name: name) { set.insert(option) }
        }
    }
}
