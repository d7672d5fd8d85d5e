/// The engine's own record of a session.
struct SessionRecord: Sendable {
    let id: SessionID
    let appName: String
    var category: Category
    var mode: Mode
    /// As reported: explicit options with C3's and C5's implications.
    var options: CategoryOptions
    var isCall: Bool
    /// A2: exempt by identity or listed in `callExemptApps`, decided when the session appears.
    var isCallExempt: Bool
    /// A2 as the daemon decided it by who the client is; nil: by `callExemptApps` names.
    var callExemptByIdentity: Bool? = nil
    var state: SessionState = .inactive
    var stateReason: Reason
    var appState: AppState
    var speakerOverride = false
    /// Set while interrupted.
    var interruption: Interruption?
    /// The interrupted sessions whose interruption this session causes (the reverse of `Interruption.causes`).
    var interrupting: [SessionID] = []
    var streams: [StreamID] = []
    /// Set for an unaware app.
    var unaware: UnawareBehaviour?
    /// An unaware app's stream properties, for matching `callExemptApps` again after a reload.
    var unawareProperties: [String: String]? = nil

    var isMixable: Bool { options.contains(.mixWithOthers) }
    var isActive: Bool { state == .active }
}

/// An ongoing interruption of one session (D3, D4).
struct Interruption: Sendable {
    /// The active sessions that still hold it; it ends when none is left.
    var causes: [SessionID]
    /// Whether every cause that left did so by deactivating with notifyOthers.
    var everyCauseNotified = true
}

/// How an unaware app's session behaves (POLICY section 6).
struct UnawareBehaviour: Sendable {
    var endsWithNotifyOthers: Bool
    /// The pending grace timer (U2), if any.
    var graceTimer: TimerID?
}

/// The engine's record of a stream.
struct StreamRecord: Sendable {
    let session: SessionID
    let direction: StreamDirection
    var isRunning: Bool
    /// Set while R4 keeps it silent (O3): the disconnect that stopped it.
    var stoppedByRouteLoss: RouteLoss?
    /// What the verdict last sent for it asked for.
    var sent: StreamEffect?
}

/// The disconnect that stopped a stream (R4), kept small: streams are many.
struct RouteLoss: Sendable {
    var event: EventNumber
    var port: Port
    var reason: Reason { Reason(.R4, event: event, port: port) }
}

/// What one event produced so far; emptied at the start of each event and turned into actions at its end.
struct EventEffects: Sendable {
    var notifications: [PendingNotification] = []
    /// Sessions whose streams must be judged again.
    var touchedSessions: Set<SessionID> = []
    var timerActions: [PolicyAction] = []
    /// Set when every stream's port may have moved (a port event).
    var routesMayHaveChanged = false

    mutating func reset() {
        notifications.removeAll(keepingCapacity: true)
        touchedSessions.removeAll(keepingCapacity: true)
        timerActions.removeAll(keepingCapacity: true)
        routesMayHaveChanged = false
    }
}

/// A notification waiting to be ordered: by session, then R7's order (route change, interruption, hint), then
/// as sent.
struct PendingNotification: Sendable {
    var session: SessionID
    var notification: SessionNotification
    var reason: Reason
    var sequence: Int

    var r7Rank: Int {
        switch notification {
        case .mediaServicesWereLost, .mediaServicesWereReset: 0
        case .routeChange: 1
        case .interruptionBegan, .interruptionEnded: 2
        case .silenceSecondaryAudioHint: 3
        }
    }
}

/// The sessions in each role that the rules ask about, kept up to date on every change of state or category,
/// so that an event costs the same however many idle sessions there are.
struct ActiveIndexes: Sendable, Equatable {
    var active: Set<SessionID> = []
    var nonmixable: Set<SessionID> = []
    /// Nonmixable with output: what makes the secondary-audio hint true (A7).
    var nonmixableWithOutput: Set<SessionID> = []
    var calls: Set<SessionID> = []
    /// With `duckOthers` (O7).
    var duckers: Set<SessionID> = []
    /// In category `record` (O6).
    var recorders: Set<SessionID> = []

    mutating func update(_ session: SessionRecord) {
        let id = session.id
        guard session.isActive else {
            remove(id)
            return
        }
        active.insert(id)
        set(\.nonmixable, id, !session.isMixable)
        set(\.nonmixableWithOutput, id, !session.isMixable && session.category.hasOutput)
        set(\.calls, id, session.isCall)
        set(\.duckers, id, session.options.contains(.duckOthers))
        set(\.recorders, id, session.category == .record)
    }

    mutating func remove(_ id: SessionID) {
        active.remove(id)
        nonmixable.remove(id)
        nonmixableWithOutput.remove(id)
        calls.remove(id)
        duckers.remove(id)
        recorders.remove(id)
    }

    private mutating func set(_ keyPath: WritableKeyPath<Self, Set<SessionID>>, _ id: SessionID, _ member: Bool) {
        if member { self[keyPath: keyPath].insert(id) } else { self[keyPath: keyPath].remove(id) }
    }
}

extension Set where Element == SessionID {
    /// Whether a member other than `id` exists ("another session ...").
    func containsOther(than id: SessionID) -> Bool {
        count > 1 || (count == 1 && !contains(id))
    }

    /// The lowest member other than `id`, to name in a reason.
    func firstOther(than id: SessionID) -> SessionID? {
        lazy.filter { $0 != id }.min()
    }
}
