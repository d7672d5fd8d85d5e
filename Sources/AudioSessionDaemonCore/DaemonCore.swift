import AudioSessionConfiguration
import AudioSessionPolicy
import AudioSessionProtocol

/// The daemon's logic around the engine: clients and their sessions, sound-server streams and the sessions
/// they belong to, requests and their replies. Like the engine, it does no I/O: each input returns effects.
package struct DaemonCore: Sendable {
    package var engine: PolicyEngine
    /// The daemon's own user: control requests need it (or root).
    package let controlUserID: UInt32
    /// Whether the daemon runs with a sound server and enforces verdicts on its streams itself; `hello` tells
    /// clients, so that a player knows whether to apply ducking gain to its own samples.
    package let soundServer: Bool
    package var clients: [ClientID: ClientRecord] = [:]
    package var sessionNames: [SessionID: String] = [:]
    package var sessionOwners: [SessionID: ClientID] = [:]
    /// Unaware apps' sessions, by app and role.
    package var unawareSessions: [String: SessionID] = [:]
    package var streamIDs: [StreamOrigin: StreamID] = [:]
    package var origins: [StreamID: StreamOrigin] = [:]
    /// Streams the engine has not heard of yet: seen corked, before they first ran.
    package var waitingStreams: [StreamOrigin: SoundStream] = [:]
    package var nextSession = 1
    package var nextStream = 1
    package var soundServerLost = false
    /// What each sound-server stream last said of itself, to find it a session again when its own goes away.
    package var soundStreams: [StreamOrigin: SoundStream] = [:]
    /// The status last sent to watchers; they hear only of changes.
    package var lastPublishedStatus: StatusBody?
    package var effects: [DaemonEffect] = []
    /// The output the user picked, kept across inventories and restarts (`StateOutputMemory`).
    package var outputMemory = StateOutputMemory()
    /// The engine events handled, for the event log (off unless the daemon keeps one).
    package var recorder = JournalEventRecorder()
    /// The ALSA mixer control, when the daemon runs one (no sound server); nil until it is opened.
    package var mixer: MixerState?
    /// feedbackd's profile as last reported, and the profiles the daemon set that have not come back yet.
    package var feedbackd = FeedbackdLedger()
    /// D8: the clients exempt from A2 by who they are (`DaemonConfiguration.callExemptClients`).
    package var callExemptClients: [CallExemptClient] = []
    /// Which file a configured executable is now, so that a dialer updated since the configuration was read is
    /// still recognised. A look at the file system, so the shell's: the daemon gives `FileIdentity.of(path:)`;
    /// until it does, no file is known.
    package var fileIdentity: @Sendable (String) -> FileIdentity? = { _ in nil }
    /// Why the state directory could not take the write the current request needs (`StateKeeper.prepare`, a
    /// full disk): the request is refused with `stateUnavailable`. Set by the policy loop before each input.
    package var stateProblem: StateWriteError?
    /// The last decisions logged, for `decisions`.
    package var recentDecisions = RecentDecisions()
    /// Section 6b: the media players on the session bus, and the sessions they drive.
    package var players = PlayerTable()
    /// The engine's timers of pauses sent to players, with the player asked (P6).
    package var awaitedPauses: [TimerID: String] = [:]
    /// Players given up on (P6) and said so in the log: once per session.
    package var loggedBadPlayers: Set<SessionID> = []

    package init(engine: PolicyEngine, controlUserID: UInt32, soundServer: Bool = true) {
        self.engine = engine
        self.controlUserID = controlUserID
        self.soundServer = soundServer
    }

    /// Takes one input and returns what must be done about it.
    package mutating func handle(_ input: DaemonInput) -> [DaemonEffect] {
        effects.removeAll(keepingCapacity: true)
        switch input {
        case .clientConnected(let client, let peer):
            clients[client] = ClientRecord(peer: peer)
        case .request(let client, let request):
            handle(request, from: client)
        case .badRequest(let client, let error):
            send(client, .reply(.failure(error.id, ErrorBody(code: error.code.rawValue, message: error.message, field: error.field))))
        case .clientDisconnected(let client):
            disconnect(client)
        case .timerFired(let timer):
            run(.timerFired(timer))
            notePauseTimerFired(timer)
            removeIdleUnawareSessions()
        case .sound(let fact):
            handle(fact)
        case .player(let fact):
            handle(fact)
        case .platform(let fact):
            handle(fact)
        case .reconfigure(let configuration):
            run(.configurationChanged(configuration.policy))
            callExemptClients = configuration.callExemptClients
            decideCallExemptionsAgain()
            effects.append(.log("configuration applied: duck level \(configuration.policy.duckLevel), fade \(configuration.policy.duckFadeMs) ms, grace \(configuration.policy.graceMs) ms, \(configuration.policy.rules.count) rules"))
        }
        noteOutputSelection()
        holdMixerForSilentSwitch()
        publishStatusToWatchers()
        noteDecisions()
        return effects
    }

    /// Hands an event to the engine and turns its actions into effects.
    @discardableResult
    package mutating func run(_ event: PolicyEvent) -> PolicyOutcome {
        let outcome = engine.handle(event)
        if recorder.isOn { recorder.note(event, outcome, engine: engine, names: sessionNames) }
        for action in outcome.actions {
            switch action {
            case .notify(let session, let notification, let reason):
                let subject = name(of: session)
                if let owner = sessionOwners[session], clients[owner]?.isSubscribed == true {
                    let because = explainer.describe(reason)
                    effects.append(.log("\(subject): \(Explainer.text(of: notification)): \(because)"))
                    send(owner, .event(Self.event(for: notification, of: session, engine: engine, because: because)))
                } else {
                    // An unaware app's session, or one whose client does not listen: words only for the log.
                    let because = LogLine.words(for: reason, naming: name(of:))
                    effects.append(.log(LogLine { "\(subject): \(Explainer.text(of: notification)): \(because())" }))
                }
            case .setStream(let stream, let verdict):
                guard let origin = origins[stream] else { continue }
                let subject = name(of: engine.session(of: stream))
                let because = LogLine.words(for: verdict.reason, naming: name(of:))
                let (level, port) = (verdict.level, verdict.port)
                effects.append(.log(LogLine { "\(origin) of \(subject): \(Self.word(for: level)) on \(port?.rawValue ?? "-"): \(because())" }))
                if case .client(let client, let number) = origin {
                    send(client, .event(Self.streamVerdictEvent(number, verdict)))
                } else {
                    effects.append(.enforce(origin, verdict))
                }
            case .startTimer(let timer, let milliseconds):
                effects.append(.startTimer(timer, milliseconds: playerTimerMilliseconds(timer, asked: milliseconds)))
            case .cancelTimer(let timer):
                awaitedPauses[timer] = nil
                effects.append(.cancelTimer(timer))
            case .pausePlayer, .playPlayer:
                drive(action)
            }
        }
        return outcome
    }

    package mutating func send(_ client: ClientID, _ message: ServerMessage) {
        effects.append(.send(client, message))
    }

    package func name(of session: SessionID?) -> String {
        guard let session else { return "?" }
        return sessionNames[session] ?? "\(session)"
    }

    /// Reasons in words, with the daemon's names for sessions.
    package var explainer: Explainer {
        let names = sessionNames
        return Explainer(name: { names[$0] ?? "\($0)" }, when: { _ in nil })
    }
}

/// A connected client.
package struct ClientRecord: Sendable {
    package var peer: ClientPeer
    package var session: SessionID?
    /// D8: whether its session is exempt from A2, by what the process runs, and why; nil before its session.
    package var callExemption: CallExemptionDecision?
    package var isSubscribed = false
    package var isWatching = false
}
