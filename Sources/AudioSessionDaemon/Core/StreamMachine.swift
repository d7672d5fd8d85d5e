import AudioSessionPolicy
// PulseVolume (its scale and `scaled(by:)` are libpulse's cubic curve, as in `StreamLedger`) and
// PulseStreamRestoreEntry are values here; nothing of the connection is used.
import PulseBackend

/// The decisions of one sound-server connection, as a value: the server's facts and the policy's verdicts in,
/// what to tell the policy, write to the server, journal, ask and wait for out (`StreamAction`). No I/O, no
/// clock: timers are actions (`startTimer`) that come back as `timerFired`.
///
/// The shell (`PulseSession`) runs the actions in order and makes one server call at a time, so every report
/// it hands in already shows the machine's own writes. Where a decision needs something only the server or the
/// disk can say (a saved restore entry, whether a stream is still corked, whether the journal could be
/// written), the machine asks (`StreamAction.isQuestion`, always the last action of a list) and goes on with
/// the answer, which the shell hands in before any other event.
struct StreamMachine: Sendable {
    /// How long ducking and its end take (duckFadeMs); a reload changes it.
    private(set) var fadeMilliseconds: Int
    private(set) var devices = DeviceTable()
    private(set) var ledger = StreamLedger()
    /// Sources that are sinks' monitors: what the machine plays, not the user's voice.
    private var monitorSources: Set<UInt32> = []
    private var defaultSink: String?
    private var fades: [StreamOrigin: Fade] = [:]
    private var nextFade = 1
    /// module-stream-restore's entry for each stream as it was when the stream appeared (nil inside: none), so
    /// that what the policy made it save (a ducked volume, a mute, a device) can be undone when it ends.
    private var savedBeforePolicy: [StreamOrigin: PulseStreamRestoreEntry?] = [:]
    /// Whether each stream was last reported running, and the pauses not reported yet (see `reportStream`).
    private var reportedRunning: [StreamOrigin: Bool] = [:]
    private var unsettledPauses: [StreamOrigin: Int] = [:]
    private var nextPause = 1
    private var lastReported: [StreamOrigin: SoundStream] = [:]
    /// Each playback stream's process and its ancestors, read by the shell when it first appears (section 6b).
    private var processLines: [StreamOrigin: [Int32]] = [:]
    /// What the stream journal holds; nil: no journal (no state directory, or after shutdown).
    private(set) var journal: JournalOnDisk?
    /// What is being written to the journal, until its answer.
    private var journalPending: [StreamOrigin: JournalStreamEntry] = [:]
    /// Verdicts not carried out because the journal could not be written ahead of them (a full disk): the
    /// stream keeps its user's values meanwhile, and they are tried again after `journalRetry`.
    private var unjournaled: [StreamOrigin: StreamVerdict] = [:]
    private var journalRetryPending = false
    /// Work of the event in hand still to do, and the answer it waits for.
    private var agenda: [Step] = []
    private var awaiting: Awaiting?

    /// How long a running stream must stay corked to count as paused: PipeWire corks a stream for a few
    /// milliseconds while it moves it, which is not the app pausing (a pause then play would restart a stream
    /// R4 stopped, O3).
    static let pauseSettling = Duration.milliseconds(150)
    /// How long a stream the server moved stays held muted when no verdict comes.
    static let holdAfterMove = Duration.milliseconds(300)
    static let fadeStepMilliseconds = 25
    static let fadeStep = Duration.milliseconds(fadeStepMilliseconds)
    static let journalRetry = Duration.seconds(1)

    struct JournalOnDisk: Sendable, Equatable {
        var written: [StreamOrigin: JournalStreamEntry] = [:]
        /// The file may hold what an earlier daemon wrote: the next end of turn writes it even if unchanged.
        var mayHoldOlderEntries = false
    }

    struct Fade: Sendable, Equatable {
        var id: Int
        var steps: [PulseVolume]
    }

    init(fadeMilliseconds: Int) {
        self.fadeMilliseconds = fadeMilliseconds
    }

    /// Whether the shell should read the process line of a stream it reports (only when it first appears).
    func needsProcessLine(_ origin: StreamOrigin) -> Bool { processLines[origin] == nil }

    mutating func handle(_ event: Event) -> [StreamAction] {
        switch event {
        case .journalOpened(let written, let older):
            journal = JournalOnDisk(written: written, mayHoldOlderEntries: older)
            return []
        case .defaultSinkKnown(let name):
            defaultSink = name
            return []
        case .inventoryTaken: return [.tell(.inventoryTaken)]
        case .sinkReported(let index, let name, let port):
            guard let port else { return [] }
            return devices.update(index, name: name, port: port, isSink: true).map(StreamAction.tell)
        case .sinkRemoved(let index): return devices.remove(index, isSink: true).map(StreamAction.tell)
        case .sourceReported(let index, let name, let port, let isMonitor):
            guard !isMonitor else {
                monitorSources.insert(index)
                return []
            }
            guard let port else { return [] }
            return devices.update(index, name: name, port: port, isSink: false).map(StreamAction.tell)
        case .sourceRemoved(let index):
            monitorSources.remove(index)
            return devices.remove(index, isSink: false).map(StreamAction.tell)
        case .defaultSinkReported(let name): return defaultSinkReported(name)
        case .streamReported(let report, let processLine): return streamReported(report, processLine: processLine)
        case .streamRemoved(let origin): return streamRemoved(origin)
        case .verdictsHandedOver(let verdicts): return run([.enforce(verdicts)])
        case .timerFired(let timer): return timerFired(timer)
        case .fadeChanged(let milliseconds):
            fadeMilliseconds = milliseconds
            return []
        case .turnEnded: return turnEnded()
        case .shutdown: return shutdown()
        case .restoreEntryRead(let entry):
            guard case .restoreEntry(let report, let processLine) = awaiting else { return [] }
            awaiting = nil
            savedBeforePolicy[report.origin] = .some(entry)
            return run([.report(report, processLine: processLine)])
        case .journalWritten(let succeeded): return journalWritten(succeeded: succeeded)
        case .corkedReported(let corked):
            guard case .corked(let origin) = awaiting else { return [] }
            awaiting = nil
            var actions: [StreamAction] = []
            if corked == true, var paused = lastReported[origin] {
                paused.isRunning = false
                reportedRunning[origin] = false
                actions.append(.tell(.streamSeen(paused)))
            }
            return actions + drain()
        case .sinkListed(let listed):
            guard case .sinkListed(let chosen) = awaiting else { return [] }
            awaiting = nil
            // PulseAudio announces the new default before the removal of the old one: a previous default that
            // is gone by now was replaced by the server, not by the user.
            return (listed ? [.tell(.outputSelectedByUser(chosen))] : []) + drain()
        }
    }

    // MARK: Devices

    /// A default sink that someone changed to a device that was already there is the user picking an output
    /// (R3); one the server changed because a device came or went is not.
    private mutating func defaultSinkReported(_ current: String?) -> [StreamAction] {
        let previous = defaultSink
        defaultSink = current
        guard let current, current != previous, let previous, devices.sink(named: previous) != nil,
            let chosen = devices.sink(named: current)
        else { return [] }
        awaiting = .sinkListed(chosen: chosen.device.port)
        return [.askSinkListed(previous)]
    }

    // MARK: Streams

    /// A stream's report. A playback stream seen for the first time with a restore key waits for the server's
    /// saved entry of that key first (module-stream-restore), to undo what the policy makes it save.
    private mutating func streamReported(_ report: StreamReport, processLine: [Int32]?) -> [StreamAction] {
        let origin = report.origin
        if report.isRecord {
            // A stream that records a sink's monitor (a level meter, a screen recorder) takes what the machine
            // plays, not the user's voice: the policy neither moves it to the microphone (R6) nor mutes it for a
            // call (docs/POLICY-NOTES.md). A recorder already in the policy's hands that moves onto a monitor
            // stays there.
            guard !monitorSources.contains(report.device) || ledger.entries[origin] != nil else { return [] }
        } else if let key = report.restoreKey, savedBeforePolicy[origin] == nil, ledger.entries[origin] == nil {
            awaiting = .restoreEntry(report, processLine: processLine)
            return [.readRestoreEntry(key)]
        }
        return run([.report(report, processLine: processLine)])
    }

    /// What a report says beyond the known; a stream the server moved by itself (its device went away) is muted
    /// at once and held until the policy speaks, so it is not heard on the fallback device meanwhile (R4).
    private mutating func observe(_ report: StreamReport, processLine: [Int32]?) {
        let (observation, writes) = ledger.observe(
            report.origin,
            volume: report.volume,
            muted: report.muted,
            device: report.device,
            restoreKey: report.restoreKey
        )
        agenda.insert(
            contentsOf: writes.map(Step.perform) + [.reportTail(report, observation, processLine: processLine)],
            at: 0
        )
    }

    private mutating func reportTail(
        _ report: StreamReport,
        _ observation: StreamLedger.Observation,
        processLine: [Int32]?
    ) -> [StreamAction] {
        let origin = report.origin
        var actions: [StreamAction] = []
        if report.isRecord {
            if observation == .movedByServer { actions.append(.startTimer(.holdExpired(origin), after: Self.holdAfterMove)) }
            let stream = SoundStream(
                origin: origin,
                direction: .input,
                properties: report.properties,
                isRunning: !report.corked
            )
            return actions + reportStream(stream)
        }
        switch observation {
        case .policyValuesTakenBack: actions.append(.log(.policyValuesTakenBack(origin)))
        case .policyValuesOfAnotherStreamTakenBack:
            actions.append(.log(.policyValuesOfAnotherStreamTakenBack(origin, restoreKey: report.restoreKey ?? "")))
        case .userSetVolume: fades[origin] = nil
        case .movedByServer:
            fades[origin] = nil
            actions.append(.log(.heldAfterMove(origin)))
            actions.append(.startTimer(.holdExpired(origin), after: Self.holdAfterMove))
        case .nothingNew: break
        }
        if processLines[origin] == nil { processLines[origin] = processLine ?? [] }
        let stream = SoundStream(
            origin: origin,
            direction: .output,
            properties: report.properties,
            isRunning: !report.corked,
            processLine: processLines[origin] ?? []
        )
        return actions + reportStream(stream)
    }

    /// Tells the policy of a stream, except that a running stream that corks is reported paused only once it
    /// has stayed corked for `pauseSettling`.
    private mutating func reportStream(_ stream: SoundStream) -> [StreamAction] {
        let origin = stream.origin
        lastReported[origin] = stream
        if stream.isRunning {
            unsettledPauses[origin] = nil
        } else if reportedRunning[origin] == true {
            guard unsettledPauses[origin] == nil else { return [] }
            let pause = nextPause
            nextPause += 1
            unsettledPauses[origin] = pause
            return [.startTimer(.pauseSettled(origin, pause), after: Self.pauseSettling)]
        }
        reportedRunning[origin] = stream.isRunning
        return [.tell(.streamSeen(stream))]
    }

    /// A stream ended: if the policy had changed it, the user's values go back into module-stream-restore's
    /// saved state, so the app's next stream does not start ducked or muted.
    private mutating func streamRemoved(_ origin: StreamOrigin) -> [StreamAction] {
        fades[origin] = nil
        unjournaled[origin] = nil
        reportedRunning[origin] = nil
        unsettledPauses[origin] = nil
        lastReported[origin] = nil
        processLines[origin] = nil
        var actions: [StreamAction] = [.tell(.streamGone(origin))]
        let before = savedBeforePolicy.removeValue(forKey: origin) ?? nil
        if let entry = ledger.remove(origin), let key = entry.restoreKey {
            let mended = PulseStreamRestoreEntry(
                key: key,
                volume: entry.userVolume,
                muted: entry.userMuted,
                device: before?.device
            )
            actions.append(.mendRestoreEntry(origin, mended))
        }
        return actions
    }

    // MARK: Timers

    private mutating func timerFired(_ timer: StreamTimer) -> [StreamAction] {
        switch timer {
        case .pauseSettled(let origin, let pause):
            guard unsettledPauses[origin] == pause else { return [] }
            unsettledPauses[origin] = nil
            if case .client = origin { return [] }
            awaiting = .corked(origin)
            return [.askCorked(origin)]
        case .holdExpired(let origin):
            return ledger.entries[origin]?.heldSinceMove == true ? [.tell(.streamMovedByServer(origin))] : []
        case .fadeStep(let origin, let fade):
            return run([.continueFade(origin, fade)])
        case .journalRetry:
            journalRetryPending = false
            let waiting = unjournaled.sorted { $0.key.description < $1.key.description }.map { HandedVerdict($0.key, $0.value) }
            unjournaled.removeAll()
            return run([.enforce(waiting)])
        }
    }

    // MARK: Shutdown

    /// Every stream the policy changed gets its user's values back before the daemon exits.
    private mutating func shutdown() -> [StreamAction] {
        fades.removeAll()
        let writes = ledger.restoreAll()
        return run(writes.map(Step.perform) + [.clearJournal, .act(.log(.gaveBack(writes: writes.count)))])
    }

    // MARK: The agenda

    /// A piece of an event's work; a step that asks a question leaves the rest for after its answer.
    enum Step: Sendable {
        case act(StreamAction)
        case report(StreamReport, processLine: [Int32]?)
        case reportTail(StreamReport, StreamLedger.Observation, processLine: [Int32]?)
        /// One write, journaled ahead if it holds the stream back from its user's values.
        case perform(StreamLedger.Write)
        case enforce([HandedVerdict])
        case continueFade(StreamOrigin, Int)
        case clearJournal
    }

    enum Awaiting: Sendable {
        case restoreEntry(StreamReport, processLine: [Int32]?)
        case journal(then: AfterJournal)
        case corked(StreamOrigin)
        case sinkListed(chosen: Port)
    }

    enum AfterJournal: Sendable {
        case perform(StreamLedger.Write)
        case verdicts(VerdictPlan, needed: [StreamOrigin])
        case endOfTurn
        case clear
    }

    /// Runs `steps` before whatever the event in hand has left, until done or waiting for an answer.
    private mutating func run(_ steps: [Step]) -> [StreamAction] {
        agenda.insert(contentsOf: steps, at: 0)
        return drain()
    }

    private mutating func drain() -> [StreamAction] {
        var actions: [StreamAction] = []
        while awaiting == nil, !agenda.isEmpty {
            actions += take(agenda.removeFirst())
        }
        return actions
    }

    private mutating func take(_ step: Step) -> [StreamAction] {
        switch step {
        case .act(let action): return [action]
        case .report(let report, let processLine):
            observe(report, processLine: processLine)
            return []
        case .reportTail(let report, let observation, let processLine):
            return reportTail(report, observation, processLine: processLine)
        case .perform(let write): return perform(write)
        case .enforce(let verdicts): return enforce(verdicts)
        case .continueFade(let origin, let fade):
            continueFade(origin, fade)
            return []
        case .clearJournal:
            guard let journal else { return [] }
            guard !journal.written.isEmpty || journal.mayHoldOlderEntries else {
                self.journal = nil
                return []
            }
            return askToWrite([:], then: .clear)
        }
    }

    private mutating func askToWrite(
        _ entries: [StreamOrigin: JournalStreamEntry],
        then next: AfterJournal
    ) -> [StreamAction] {
        journalPending = entries
        awaiting = .journal(then: next)
        return [.writeJournal(entries)]
    }

    private mutating func journalWritten(succeeded: Bool) -> [StreamAction] {
        guard case .journal(let next) = awaiting else { return [] }
        awaiting = nil
        if succeeded {
            journal?.written = journalPending
            journal?.mayHoldOlderEntries = false
        }
        journalPending = [:]
        switch next {
        case .perform(let write): return finishPerform(write) + drain()
        case .verdicts(let plan, let needed):
            let refused = Set(needed.filter(journalNeedsWrite))
            return finishVerdicts(plan, refused: refused) + drain()
        case .endOfTurn: return drain()
        case .clear:
            journal = nil
            return drain()
        }
    }

    /// The end of a turn: the whole journal as the ledger calls for it. Ahead of a write only additions and
    /// changes are made; an entry goes away here, once the writes that gave the user's values back were made.
    private mutating func turnEnded() -> [StreamAction] {
        guard let journal, awaiting == nil else { return [] }
        var entries: [StreamOrigin: JournalStreamEntry] = [:]
        for origin in ledger.entries.keys {
            if let entry = journalEntry(for: origin, widening: fades[origin] != nil) { entries[origin] = entry }
        }
        guard entries != journal.written || journal.mayHoldOlderEntries else { return [] }
        return askToWrite(entries, then: .endOfTurn)
    }

    // MARK: Writes

    /// One write; a write whose journal entry could not be written is not made (a stream the server moved is
    /// then not held muted; a fade step is skipped).
    private mutating func perform(_ write: StreamLedger.Write) -> [StreamAction] {
        if journalNeedsWrite(write.origin) { return askToWrite(journalAhead(), then: .perform(write)) }
        return finishPerform(write)
    }

    private mutating func finishPerform(_ write: StreamLedger.Write) -> [StreamAction] {
        guard !journalNeedsWrite(write.origin) || !holdsBack(write) else {
            ledger.notMade(write)
            return [.log(.writeNotMade(write))]
        }
        if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
        return [.write(write)]
    }

    /// Whether a write takes a stream farther from its user's values (a mute, a move, a quieter volume): only
    /// those wait for the journal; one that gives values back is made whatever the disk says.
    func holdsBack(_ write: StreamLedger.Write) -> Bool {
        switch write {
        case .mute(_, let muted): return muted
        case .move: return true
        case .volume(let origin, let volume):
            guard let written = ledger.entries[origin]?.writtenVolume else { return false }
            return StreamLedger.loudness(volume) < StreamLedger.loudness(written)
        }
    }

    // MARK: Verdicts

    struct VerdictPlan: Sendable {
        struct Planned: Sendable {
            var origin: StreamOrigin
            /// The volume written before, where a fade starts; nil: no fade.
            var before: PulseVolume?
            var writes: [StreamLedger.Write]
        }
        var latest: [StreamOrigin: StreamVerdict] = [:]
        var order: [StreamOrigin] = []
        var planned: [Planned] = []
        var entriesBefore: [StreamOrigin: StreamLedger.Entry] = [:]
    }

    /// The verdicts the policy handed over since the last turn, in one turn: the ledger takes them all in
    /// first, so that one journal write (ahead of the first server write) covers every stream they change. A
    /// verdict says all of how a stream is to sound, so only a stream's latest one counts.
    private mutating func enforce(_ verdicts: [HandedVerdict]) -> [StreamAction] {
        var plan = VerdictPlan()
        for handed in verdicts where plan.latest.updateValue(handed.verdict, forKey: handed.origin) == nil {
            plan.order.append(handed.origin)
        }
        for origin in plan.order {
            let verdict = plan.latest[origin]!
            let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
            plan.entriesBefore[origin] = ledger.entries[origin]
            unjournaled[origin] = nil
            let before = ledger.entries[origin]?.writtenVolume
            fades[origin] = nil
            plan.planned.append(.init(origin: origin, before: before, writes: ledger.apply(verdict, to: origin, device: device)))
        }
        // Every entry the turn needs goes to disk first, in one write.
        let needed = plan.planned.filter { $0.writes.contains(where: holdsBack) }.map(\.origin).filter(journalNeedsWrite)
        guard needed.isEmpty else { return askToWrite(journalAhead(), then: .verdicts(plan, needed: needed)) }
        return finishVerdicts(plan, refused: [])
    }

    /// A stream whose entry could not be written (the disk is full) keeps its user's values: the policy does not
    /// hold silenced what a crash could leave silenced with nothing on disk to undo it. Its verdict waits and is
    /// tried again. Giving a stream back its user's values needs no entry, and is never held back.
    private mutating func finishVerdicts(_ plan: VerdictPlan, refused: Set<StreamOrigin>) -> [StreamAction] {
        var actions: [StreamAction] = []
        var planned = plan.planned
        if !refused.isEmpty {
            planned.removeAll { refused.contains($0.origin) }
            for origin in plan.order where refused.contains(origin) {
                let verdict = plan.latest[origin]!
                ledger.putBack(plan.entriesBefore[origin], for: origin)
                unjournaled[origin] = verdict
                // What gives the stream back toward its user's values (an unmute, a louder volume) is made now.
                let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
                let givingBack = ledger.giveBack(verdict, to: origin, device: device)
                if !givingBack.isEmpty { planned.append(.init(origin: origin, before: nil, writes: givingBack)) }
            }
            actions.append(.log(.verdictsWaitForJournal(count: refused.count)))
            if !journalRetryPending {
                journalRetryPending = true
                actions.append(.startTimer(.journalRetry, after: Self.journalRetry))
            }
        }
        // The writes of the turn are issued together (each stream's in order) and awaited together: one round
        // trip for the turn instead of one per write, and still no report is read before they are all done.
        var writesByStream: [[StreamLedger.Write]] = []
        var fading: [Step] = []
        for stream in planned {
            var direct: [StreamLedger.Write] = []
            for write in stream.writes {
                if case .volume(let origin, let target) = write, let before = stream.before, fadeMilliseconds > 0,
                    origin.isSinkInput
                {
                    startFade(origin, from: before, to: target)
                } else {
                    if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
                    direct.append(write)
                }
            }
            if !direct.isEmpty { writesByStream.append(direct) }
            if let fade = fades[stream.origin] { fading.append(.continueFade(stream.origin, fade.id)) }
        }
        if !writesByStream.isEmpty { actions.append(.writeTogether(writesByStream)) }
        agenda.insert(contentsOf: fading, at: 0)
        return actions
    }

    // MARK: Fades

    /// Ducking and its end are reached in steps over `duckFadeMs` (O7), never in one jump.
    private mutating func startFade(_ origin: StreamOrigin, from: PulseVolume, to: PulseVolume) {
        let steps = StreamLedger.fadeSteps(
            from: from,
            to: to,
            milliseconds: fadeMilliseconds,
            stepMilliseconds: Self.fadeStepMilliseconds
        )
        fades[origin] = Fade(id: nextFade, steps: steps)
        nextFade += 1
    }

    private mutating func continueFade(_ origin: StreamOrigin, _ id: Int) {
        guard var fade = fades[origin], fade.id == id, !fade.steps.isEmpty else { return }
        let volume = fade.steps.removeFirst()
        fades[origin] = fade.steps.isEmpty ? nil : fade
        var next: [Step] = [.perform(.volume(origin, volume))]
        if !fade.steps.isEmpty { next.append(.act(.startTimer(.fadeStep(origin, id), after: Self.fadeStep))) }
        agenda.insert(contentsOf: next, at: 0)
    }

    // MARK: The journal's entries

    /// Whether the stream's entry has to go to disk ahead of a write and is not there as it must be.
    private func journalNeedsWrite(_ origin: StreamOrigin) -> Bool {
        guard let journal, let entry = journalEntry(for: origin, widening: true) else { return false }
        return journal.written[origin] != entry
    }

    /// The journal to write ahead of a write: what is on disk, with every entry the ledger calls for added or
    /// changed (none removed).
    private func journalAhead() -> [StreamOrigin: JournalStreamEntry] {
        var entries = journal?.written ?? [:]
        for origin in ledger.entries.keys {
            if let entry = journalEntry(for: origin, widening: true) { entries[origin] = entry }
        }
        return entries
    }

    /// The journal entry the ledger calls for now: one while the policy has anything of its own on the stream.
    /// Its policy volume spans the user's volume, the policy's aim and what was last written; `widening` also
    /// keeps the span and mute of the entry on disk (for the same user's values), for when the server may still
    /// have an earlier value of the policy's: ahead of a write, and while a fade goes on.
    func journalEntry(for origin: StreamOrigin, widening: Bool) -> JournalStreamEntry? {
        guard let entry = ledger.entries[origin], entry.policyChanges else { return nil }
        let kind: JournalStreamEntry.Kind
        let index: UInt32
        switch origin {
        case .sinkInput(let number): (kind, index) = (.sinkInput, number)
        case .sourceOutput(let number): (kind, index) = (.sourceOutput, number)
        case .client: return nil
        }
        let user = entry.userVolume.channels
        let aim = entry.policyGain == 1 ? entry.userVolume : entry.userVolume.scaled(by: entry.policyGain)
        var policyVolume = Self.farther(aim.channels, entry.writtenVolume.channels, from: user)
        var policyMuted = entry.policyMuted || entry.heldSinceMove || (entry.writtenMuted && !entry.userMuted)
        if widening, let before = journal?.written[origin], before.userVolume == user,
            before.userMuted == entry.userMuted
        {
            policyVolume = Self.farther(policyVolume, before.policyVolume, from: user)
            policyMuted = policyMuted || before.policyMuted
        }
        let isSink = kind == .sinkInput
        let properties = lastReported[origin]?.properties ?? [:]
        let saved = savedBeforePolicy[origin] ?? nil
        return JournalStreamEntry(
            kind: kind,
            index: index,
            application: properties["application.name"],
            processID: properties["application.process.id"],
            role: properties["media.role"],
            userVolume: user,
            userMuted: entry.userMuted,
            policyVolume: policyVolume,
            policyMuted: policyMuted,
            movedFrom: entry.isMovedByPolicy
                ? entry.deviceBeforePolicy.flatMap { devices.name(of: $0, isSink: isSink) } : nil,
            movedTo: entry.isMovedByPolicy ? entry.requestedDevice : nil,
            restoreKey: entry.restoreKey,
            restoreDevice: saved?.device
        )
    }

    /// Per channel, whichever of `a` and `b` is farther from `user` (`a` where the channel maps differ).
    static func farther(_ a: [UInt32], _ b: [UInt32], from user: [UInt32]) -> [UInt32] {
        guard a.count == b.count, a.count == user.count else { return a }
        return zip(zip(a, b), user).map { pair, user in
            let (a, b) = pair
            return a.distance(to: user).magnitude >= b.distance(to: user).magnitude ? a : b
        }
    }
}

extension StreamLedger.Write {
    var origin: StreamOrigin {
        switch self {
        case .volume(let origin, _), .mute(let origin, _), .move(let origin, _): origin
        }
    }
}

extension StreamOrigin {
    var isSinkInput: Bool {
        if case .sinkInput = self { return true }
        return false
    }
}

extension DeviceTable {
    func name(of index: UInt32, isSink: Bool) -> String? {
        (isSink ? sinks : sources)[index]?.name
    }
}
