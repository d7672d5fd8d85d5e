/// The audio session policy: a deterministic state machine with no I/O and no clock. Feed it events with
/// `handle(_:)`; carry out the actions it returns; read sessions with `snapshot(of:)`.
///
/// The same events always give the same actions: whatever is unordered inside is sorted on the way out.
public struct PolicyEngine: Sendable {
    public internal(set) var config: PolicyConfig
    var sessions: [SessionID: SessionRecord] = [:]
    var streams: [StreamID: StreamRecord] = [:]
    var indexes = ActiveIndexes()
    var ports: PortState
    var silentSwitch: SilentSwitch
    var silentSwitchReason: Reason
    var screenLocked: Bool
    var screenLockReason: Reason
    /// Set from `mediaServicesLost` until `mediaServicesReset`.
    var mediaServicesLoss: Reason?
    /// Sessions with a speaker override, so a port event can clear them all without visiting every session.
    var overriddenSessions: Set<SessionID> = []
    var graceTimers: [TimerID: SessionID] = [:]
    /// P6: the timeouts of pauses asked of players.
    var playerTimers: [TimerID: SessionID] = [:]
    var nextTimer = 1
    /// The number of the event being handled, or of the last one.
    public private(set) var eventNumber: EventNumber = 0
    var effects = EventEffects()

    /// An engine with no sessions, on a device with these ports (in connection order: the last is the most
    /// recent), switch and lock.
    public init(
        config: PolicyConfig = .standard,
        outputs: [Port] = [.speaker],
        inputs: [Port] = [.builtInMic],
        silentSwitch: SilentSwitch = .ring,
        screenLocked: Bool = false
    ) {
        self.config = config
        self.ports = PortState(outputs: outputs.filter(\.isOutput), inputs: inputs.filter(\.isInput))
        self.silentSwitch = silentSwitch
        self.silentSwitchReason = Reason(.O4)
        self.screenLocked = screenLocked
        self.screenLockReason = Reason(.O5)
    }

    /// Takes one event and returns what must be done about it: an error when the request failed (for `isBusy`
    /// the request still took effect, D2), and the actions, in a fixed order: notifications (by session, each
    /// session's in R7's order), stream verdicts (by stream), player commands, timers.
    public mutating func handle(_ event: PolicyEvent) -> PolicyOutcome {
        eventNumber += 1
        effects.reset()
        let before = AudibilityInputs(self)
        let hintSourcesBefore = indexes.nonmixableWithOutput
        let error = apply(event)
        sendHintChanges(hintSourcesBefore: hintSourcesBefore)
        let actions = collectActions(audibilityChanged: before != AudibilityInputs(self))
        return PolicyOutcome(error: error, actions: actions)
    }

    private mutating func apply(_ event: PolicyEvent) -> PolicyError? {
        switch event {
        case .sessionCreated(let id, let declaration): return createSession(id, declaration)
        case .sessionRemoved(let id): return removeSession(id)
        case .setCategory(let id, let category, let mode, let options):
            return setCategory(id, category, mode: mode, options: options)
        case .activate(let id): return activate(id, rule: .A1)
        case .deactivate(let id, let notifyOthers): return deactivate(id, notifyOthers: notifyOthers, rule: .D1)
        case .streamStarted(let stream, let session, let direction):
            return startStream(stream, session: session, direction: direction)
        case .streamPaused(let stream): return pauseStream(stream)
        case .streamRemoved(let stream): return removeStream(stream)
        case .silentSwitch(let position):
            silentSwitch = position
            silentSwitchReason = Reason(.O4, event: eventNumber)
            return nil
        case .screenLocked(let locked):
            screenLocked = locked
            screenLockReason = Reason(.O5, event: eventNumber)
            return nil
        case .appState(let id, let appState): return setAppState(id, appState)
        case .portConnected(let port): return connect(port)
        case .portDisconnected(let port): return disconnect(port)
        case .outputSelected(let port): return selectOutput(port)
        case .outputOverridden(let id, let override): return overrideOutput(id, override)
        case .mediaServicesLost: return loseMediaServices()
        case .mediaServicesReset: return resetMediaServices()
        case .timerFired(let timer): return fireTimer(timer)
        case .configurationChanged(let config): return reconfigure(config)
        case .callExemptionDecided(let id, let exempt): return decideCallExemption(id, exempt: exempt)
        case .playerFound(let id): return findPlayer(id)
        case .playerLost(let id): return losePlayer(id)
        }
    }

    // MARK: Shared helpers for the event handlers

    func record(_ id: SessionID) -> SessionRecord? { sessions[id] }

    func unknownSession(_ id: SessionID) -> PolicyError {
        PolicyError(.badParam, Reason(.C1, event: eventNumber, session: id), "there is no session \(id)")
    }

    mutating func notify(_ id: SessionID, _ notification: SessionNotification, _ reason: Reason) {
        effects.notifications.append(
            PendingNotification(
                session: id,
                notification: notification,
                reason: reason,
                sequence: effects.notifications.count
            )
        )
    }

    /// Changes a session's state, keeping the indexes right and its streams due for judging.
    mutating func setState(_ id: SessionID, _ state: SessionState, _ reason: Reason) {
        guard var session = sessions[id] else { return }
        session.state = state
        session.stateReason = reason
        sessions[id] = session
        indexes.update(session)
        effects.touchedSessions.insert(id)
    }

    /// A new timer's ID; the caller asks for it with a `startTimer` action.
    mutating func newTimer() -> TimerID {
        defer { nextTimer += 1 }
        return TimerID(rawValue: nextTimer)
    }

    mutating func modify(_ id: SessionID, _ change: (inout SessionRecord) -> Void) {
        guard sessions[id] != nil else { return }
        change(&sessions[id]!)
        indexes.update(sessions[id]!)
        effects.touchedSessions.insert(id)
    }
}

/// What came of one event.
public struct PolicyOutcome: Hashable, Sendable {
    /// Nil when the request succeeded. `isBusy` reports a deactivation that did take effect (D2).
    public var error: PolicyError?
    public var actions: [PolicyAction]
}

/// Everything a stream's verdict depends on besides its own session: when this changes, every active session's
/// streams are judged again.
struct AudibilityInputs: Equatable {
    var silentSwitch: SilentSwitch
    var screenLocked: Bool
    var mediaServicesLost: Bool
    var duckers: Set<SessionID>
    var recorders: Set<SessionID>

    init(_ engine: PolicyEngine) {
        silentSwitch = engine.silentSwitch
        screenLocked = engine.screenLocked
        mediaServicesLost = engine.mediaServicesLoss != nil
        duckers = engine.indexes.duckers
        recorders = engine.indexes.recorders
    }
}
