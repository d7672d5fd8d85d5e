import AudioSessionEventLog
import AudioSessionPolicy

/// The engine events the daemon handled, with what came of them, as records for the event log. Part of
/// `DaemonCore`, so pure like it: records carry no time; whoever writes them stamps them.
package struct JournalEventRecorder: Sendable {
    package var isOn = false
    /// Records not yet taken by the writer, each with the engine as its event left it: the sessions' states are
    /// compared when they are taken (after the turn's orders), not as the event is noted, since a comparison
    /// looks at every session (a call's activation among a hundred sessions took a fifth of its turn).
    private var pending: [(record: JournalRecord, engine: PolicyEngine)] = []
    /// What is needed for a checkpoint: each session as declared, each stream's direction, each session's
    /// state as last recorded, the timers not fired yet.
    package private(set) var declarations: [SessionID: JournalDeclaration] = [:]
    package private(set) var directions: [StreamID: StreamDirection] = [:]
    package private(set) var standings: [SessionID: SessionStanding] = [:]
    package private(set) var timers: [TimerID: Int] = [:]

    package init() {}

    /// Notes an event the engine handled and its outcome; `engine` is as the event left it.
    package mutating func note(
        _ event: PolicyEvent,
        _ outcome: PolicyOutcome,
        engine: PolicyEngine,
        names: [SessionID: String]
    ) {
        var record = JournalRecord(kind: .event, time: 0)
        var name: String?
        switch event {
        case .sessionCreated(let id, let declaration):
            name = names[id] ?? declaration.appName
            declarations[id] = JournalDeclaration(name: name!, declaration)
        case .streamStarted(let stream, _, let direction):
            directions[stream] = direction
        case .streamRemoved(let stream):
            directions[stream] = nil
        case .timerFired(let timer):
            timers[timer] = nil
        case .callExemptionDecided(let id, let exempt):
            declarations[id]?.callExempt = exempt
        default:
            break
        }
        record.event = JournalEvent(event, name: name)
        record.error = outcome.error?.code.rawValue
        var notifications: [JournalNotification] = []
        var started: [JournalTimer] = []
        var cancelled: [Int] = []
        for action in outcome.actions {
            switch action {
            case .notify(let session, let notification, _):
                notifications.append(JournalNotification(session: session, notification))
            case .startTimer(let timer, let milliseconds):
                timers[timer] = milliseconds
                started.append(JournalTimer(timer: timer.rawValue, milliseconds: milliseconds))
            case .cancelTimer(let timer):
                timers[timer] = nil
                cancelled.append(timer.rawValue)
            case .setStream, .pausePlayer, .playPlayer:
                break
            }
        }
        record.notifications = notifications.isEmpty ? nil : notifications
        record.timersStarted = started.isEmpty ? nil : started
        record.timersCancelled = cancelled.isEmpty ? nil : cancelled
        if case .mediaServicesReset = event { directions.removeAll() }
        pending.append((record, engine))
    }

    /// The sessions whose state `engine` shows changed since the last record, and forgets the ones gone. Every
    /// session is looked at after every event, so each look is a `SessionStanding` (the session alone, no
    /// names spelled out): with snapshots, a thousand sessions joining one by one spent three fifths of the
    /// daemon's time here.
    private mutating func changedStates(in engine: PolicyEngine) -> [JournalSessionState]? {
        var changed: [JournalSessionState] = []
        let live = engine.sessionIDs
        for id in live {
            guard let standing = engine.standing(of: id), standings.updateValue(standing, forKey: id) != standing
            else { continue }
            changed.append(JournalSessionState(id, standing))
        }
        if standings.count > live.count {
            for id in standings.keys where !engine.hasSession(id) {
                standings[id] = nil
                declarations[id] = nil
            }
        }
        return changed.isEmpty ? nil : changed
    }

    /// The engine's state now, for a checkpoint (times filled in by the writer).
    package func checkpoint(_ kind: JournalRecord.Kind, engine: PolicyEngine) -> JournalRecord {
        var record = JournalRecord(kind: kind, time: 0)
        let ports = engine.availablePorts
        record.device = JournalDeviceState(
            outputs: ports.outputs,
            inputs: ports.inputs,
            selection: ports.selection,
            silentSwitch: engine.silentSwitchPosition,
            screenLocked: engine.isScreenLocked
        )
        record.config = JournalConfig(engine.config)
        guard kind == .checkpoint else { return record }
        record.sessions = engine.sessionIDs.compactMap { id in
            guard let declaration = declarations[id], let snapshot = engine.snapshot(of: id) else { return nil }
            let streams = engine.streamIDs(of: id).map {
                JournalStream(stream: $0.rawValue, direction: directions[$0] ?? .output, running: engine.isRunning($0))
            }
            return JournalSessionRecord(
                session: id.rawValue,
                declaration: declaration,
                state: JournalSessionState(snapshot),
                streams: streams
            )
        }
        record.timers = timers.sorted { $0.key < $1.key }.map {
            JournalTimer(timer: $0.key.rawValue, milliseconds: $0.value)
        }
        return record
    }

    /// Takes the records noted so far.
    package mutating func take() -> [JournalRecord] {
        let noted = pending
        pending.removeAll(keepingCapacity: true)
        return noted.map { noted in
            var record = noted.record
            record.states = changedStates(in: noted.engine)
            return record
        }
    }
}
