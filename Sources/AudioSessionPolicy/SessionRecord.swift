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
    /// Set for a player the daemon can pause (section 6b).
    var player: PlayerRecord?
}

/// What the engine knows of a player (section 6b).
struct PlayerRecord: Sendable {
    /// P6: false once it has not paused within `playerTimeoutMs`; from then on it is an ordinary unaware app.
    var answers = true
    /// The pause the daemon asked for, from P1 until it is settled: undone or kept (P3), kept (P4), or dropped
    /// because the user acted on the player (P2, P5) or it did not answer (P6).
    var daemonPause: DaemonPause?
}

/// A pause the daemon asked a player for (P1).
struct DaemonPause: Sendable {
    enum Cause: Sendable {
        /// Its session became interrupted: undone when the interruption ends with shouldResume (P3).
        case interruption
        /// R4 stopped its stream: never undone (P4).
        case routeLoss
    }
    var cause: Cause
    /// The port the player was routed to when it was paused: if it is lost meanwhile, the player stays paused (P3).
    var port: Port?
    var portLost = false
    /// Running until the player has paused (its output stream stopped running): the player timeout (P6).
    var timeout: TimerID?
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
    /// Pause commands for players (section 6b).
    var playerActions: [PolicyAction] = []
    /// Players to play at the end of the event (P3), unless the event interrupts them again first; with the
    /// pause being undone, to keep should that happen.
    var playersToPlay: [SessionID: (reason: Reason, undoing: DaemonPause)] = [:]
    /// Set when every stream's port may have moved (a port event).
    var routesMayHaveChanged = false

    mutating func reset() {
        notifications.removeAll(keepingCapacity: true)
        touchedSessions.removeAll(keepingCapacity: true)
        timerActions.removeAll(keepingCapacity: true)
        playerActions.removeAll(keepingCapacity: true)
        playersToPlay.removeAll(keepingCapacity: true)
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
