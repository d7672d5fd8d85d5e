import AudioSessionConfiguration
import AudioSessionPolicy
import Logging
import PulseBackend

/// One connection to the sound server: reports devices and streams to the policy and carries out its verdicts.
/// Its loop makes one server call at a time and waits for it, so every report it reads already shows its own
/// writes, and a difference can only be someone else's change.
struct PulseSession {
    let connection: PulseConnection
    let inputs: AsyncStream<DaemonInput>.Continuation
    let work: AsyncStream<PulseWork>.Continuation
    var rules: PortRules
    /// How long ducking and its end take (duckFadeMs); a reload changes it.
    var fadeMilliseconds: Int
    let logger: Logger
    var devices = DeviceTable()
    /// Sources that are sinks' monitors: what the machine plays, not the user's voice (see `report(_:)` of a
    /// record stream).
    var monitorSources: Set<UInt32> = []
    var ledger = StreamLedger()
    var defaultSink: String?
    var fades: [StreamOrigin: (id: Int, steps: [PulseVolume])] = [:]
    /// module-stream-restore's entry for each stream as it was when the stream appeared (nil inside: none), so
    /// that what the policy made it save (a ducked volume, a mute, a device) can be undone when it ends.
    var savedBeforePolicy: [StreamOrigin: PulseStreamRestoreEntry?] = [:]
    /// Whether each stream was last reported running, and the pauses not reported yet (see `reportStream`).
    var reportedRunning: [StreamOrigin: Bool] = [:]
    var unsettledPauses: [StreamOrigin: Int] = [:]
    var nextPause = 1
    var lastReported: [StreamOrigin: SoundStream] = [:]
    /// Each playback stream's process and its ancestors, read once when it first appears (section 6b).
    var processLines: [StreamOrigin: [Int32]] = [:]
    /// The stream journal (`streams.json`), when the daemon has a state directory: recovered from at connect,
    /// then kept in step with the ledger.
    let journalPath: String?
    let serverAddress: String?
    var journal: JournalStreamKeeper?
    /// Verdicts not carried out because the journal could not be written ahead of them (a full disk): the
    /// stream keeps its user's values meanwhile, and they are tried again every `journalRetry`.
    var unjournaled: [StreamOrigin: StreamVerdict] = [:]
    var journalRetryPending = false
    static let journalRetry = Duration.seconds(1)
    /// Takes the verdicts the policy handed over since the last `.verdicts` (`PulseService`).
    let takeVerdicts: @Sendable () -> [(StreamOrigin, StreamVerdict)]
    /// How long a running stream must stay corked to count as paused: PipeWire corks a stream for a few
    /// milliseconds while it moves it, which is not the app pausing (a pause then play would restart a stream
    /// R4 stopped, O3).
    static let pauseSettling = Duration.milliseconds(150)
    var nextFade = 1
    /// How long a stream the server moved stays held muted when no verdict comes.
    static let holdAfterMove = Duration.milliseconds(300)
    static let fadeStep = Duration.milliseconds(25)

    enum Progress { case going, finished }

    init(
        connection: PulseConnection,
        inputs: AsyncStream<DaemonInput>.Continuation,
        work: AsyncStream<PulseWork>.Continuation,
        rules: PortRules,
        fadeMilliseconds: Int,
        logger: Logger,
        journalPath: String? = nil,
        serverAddress: String? = nil,
        takeVerdicts: @escaping @Sendable () -> [(StreamOrigin, StreamVerdict)] = { [] }
    ) {
        self.takeVerdicts = takeVerdicts
        self.journalPath = journalPath
        self.serverAddress = serverAddress
        self.connection = connection
        self.inputs = inputs
        self.work = work
        self.rules = rules
        self.fadeMilliseconds = fadeMilliseconds
        self.logger = logger
    }

    /// Devices first (the policy needs the ports to route), then the streams already playing. Before any of
    /// it, the streams a previous daemon left changed (it crashed) get their user's values back, so that the
    /// ledger takes those as the user's.
    mutating func takeInventory() async throws {
        let info = try await connection.serverInfo()
        defaultSink = info.defaultSinkName
        if let journalPath {
            let server = JournalServerIdentity(address: serverAddress, info: info)
            journal = await JournalRecovery(connection: connection, logger: logger).recover(path: journalPath, server: server)
        }
        for sink in try await connection.sinks().sorted(by: { $0.index < $1.index }) { report(sink) }
        for source in try await connection.sources().sorted(by: { $0.index < $1.index }) { report(source) }
        for input in try await connection.sinkInputs() { await reportAndHold(input) }
        for output in try await connection.sourceOutputs() { await report(output) }
        tell(.inventoryTaken)
    }

    mutating func handle(_ item: PulseWork) async throws -> Progress {
        defer { syncJournal() }
        switch item {
        case .event(.disconnected(let reason)):
            throw DaemonError("sound server connection lost: \(reason)")
        case .event(.changed(let facility, let change, let index)):
            try await handle(facility, change, index)
        case .verdicts:
            await enforce(takeVerdicts())
        case .journalRetry:
            journalRetryPending = false
            let waiting = unjournaled.map { ($0.key, $0.value) }
            unjournaled.removeAll()
            await enforce(waiting)
        case .fadeStep(let origin, let fade):
            await continueFade(origin, fade)
        case .pauseSettled(let origin, let pause):
            guard unsettledPauses[origin] == pause else { break }
            unsettledPauses[origin] = nil
            let corked: Bool? =
                switch origin {
                case .sinkInput(let index): try await connection.sinkInput(index)?.corked
                case .sourceOutput(let index): try await connection.sourceOutput(index)?.corked
                case .client: nil
                }
            if corked == true, let known = lastReported[origin] {
                var paused = known
                paused.isRunning = false
                reportedRunning[origin] = false
                tell(.streamSeen(paused))
            }
        case .holdExpired(let origin):
            if ledger.entries[origin]?.heldSinceMove == true { inputs.yield(.sound(.streamMovedByServer(origin))) }
        case .fade(let milliseconds):
            fadeMilliseconds = milliseconds
        case .rules(let newRules):
            rules = newRules
            for sink in try await connection.sinks().sorted(by: { $0.index < $1.index }) { report(sink) }
            for source in try await connection.sources().sorted(by: { $0.index < $1.index }) { report(source) }
        case .shutdown:
            await restoreEverything()
            return .finished
        }
        return .going
    }

    private mutating func handle(_ facility: PulseFacility, _ change: PulseChange, _ index: UInt32) async throws {
        switch (facility, change) {
        case (.sink, .remove): devices.remove(index, isSink: true).forEach(tell)
        case (.source, .remove):
            monitorSources.remove(index)
            devices.remove(index, isSink: false).forEach(tell)
        case (.sink, _):
            if let sink = try await connection.sinks().first(where: { $0.index == index }) { report(sink) }
        case (.source, _):
            if let source = try await connection.sources().first(where: { $0.index == index }) { report(source) }
        case (.sinkInput, .remove): await streamGone(.sinkInput(index))
        case (.sourceOutput, .remove): await streamGone(.sourceOutput(index))
        case (.sinkInput, _):
            if let input = try await connection.sinkInput(index) { await reportAndHold(input) }
        case (.sourceOutput, _):
            if let output = try await connection.sourceOutput(index) { await report(output) }
        case (.server, _): try await checkDefaultSink()
        default: break
        }
    }

    private func tell(_ fact: SoundFact) { inputs.yield(.sound(fact)) }

    // MARK: Devices

    private mutating func report(_ sink: PulseSink) {
        var properties = sink.properties
        properties["sink.name"] = sink.name
        properties["port.name"] = sink.activePort
        guard let port = rules.outputPort(of: properties) else { return }
        devices.update(sink.index, name: sink.name, port: port, isSink: true).forEach(tell)
    }

    private mutating func report(_ source: PulseSource) {
        guard source.monitorOfSink == nil else {
            monitorSources.insert(source.index)
            return
        }
        var properties = source.properties
        properties["source.name"] = source.name
        properties["port.name"] = source.activePort
        guard let port = rules.inputPort(of: properties) else { return }
        devices.update(source.index, name: source.name, port: port, isSink: false).forEach(tell)
    }

    /// A default sink that someone changed to a device that was already there is the user picking an output
    /// (R3); one the server changed because a device came or went is not.
    private mutating func checkDefaultSink() async throws {
        let current = try await connection.serverInfo().defaultSinkName
        defer { defaultSink = current }
        guard let current, current != defaultSink, let previous = defaultSink,
            devices.sink(named: previous) != nil, let chosen = devices.sink(named: current)
        else { return }
        // PulseAudio announces the new default before the removal of the old one: a previous default that is
        // gone by now was replaced by the server, not by the user.
        guard try await connection.sinks().contains(where: { $0.name == previous }) else { return }
        tell(.outputSelectedByUser(chosen.device.port))
    }

    // MARK: Streams

    /// Notes the saved entry of a stream seen for the first time (when module-stream-restore is there).
    private mutating func rememberSavedEntry(_ origin: StreamOrigin, key: String?) async {
        guard let key, savedBeforePolicy[origin] == nil, ledger.entries[origin] == nil else { return }
        savedBeforePolicy[origin] = .some(try? await connection.streamRestoreEntry(key))
    }

    /// A record stream's report; one the server moved by itself is held muted as a playback stream is, and
    /// likewise asked about again if the policy does not speak.
    private mutating func report(_ output: PulseSourceOutput) async {
        let origin = StreamOrigin.sourceOutput(output.index)
        // A stream that records a sink's monitor (a level meter, a screen recorder) takes what the machine plays,
        // not the user's voice: the policy neither moves it to the microphone (R6) nor mutes it for a call
        // (docs/POLICY-NOTES.md). A recorder already in the policy's hands that moves onto a monitor stays there.
        guard !monitorSources.contains(output.sourceIndex) || ledger.entries[origin] != nil else { return }
        let (observation, writes) = ledger.observe(origin, volume: output.volume, muted: output.muted, device: output.sourceIndex, restoreKey: output.properties["module-stream-restore.id"])
        for write in writes { await perform(write) }
        if observation == .movedByServer { holdAfterMove(origin) }
        reportStream(SoundStream(origin: origin, direction: .input, properties: output.properties, isRunning: !output.corked))
    }

    /// A playback stream's report; if the server moved it by itself (its device went away), it is muted at
    /// once and held until the policy speaks, so it is not heard on the fallback device meanwhile (R4).
    private mutating func reportAndHold(_ input: PulseSinkInput) async {
        let origin = StreamOrigin.sinkInput(input.index)
        let seen = ContinuousClock.now
        await rememberSavedEntry(origin, key: input.properties["module-stream-restore.id"])
        let (observation, writes) = ledger.observe(origin, volume: input.volume, muted: input.muted, device: input.sinkIndex, restoreKey: input.properties["module-stream-restore.id"])
        for write in writes { await perform(write) }
        if observation == .policyValuesTakenBack {
            logger.info("\(origin) started with the policy's values the server kept from its app's last stream; given its user's values")
        }
        if observation == .policyValuesOfAnotherStreamTakenBack {
            logger.info("\(origin) started with the policy's values of another stream of its kind (\(input.properties["module-stream-restore.id"] ?? "")), which the server saved for it; given that stream's user values")
        }
        if observation == .userSetVolume { fades[origin] = nil }
        if observation == .movedByServer {
            fades[origin] = nil
            logger.info("\(origin) moved by the server: held muted \(ContinuousClock.now - seen) after the report")
            holdAfterMove(origin)
        }
        if processLines[origin] == nil {
            processLines[origin] = input.properties["application.process.id"].flatMap(Int32.init).map { ProcessLine.of($0) } ?? []
        }
        reportStream(SoundStream(origin: origin, direction: .output, properties: input.properties, isRunning: !input.corked, processLine: processLines[origin] ?? []))
    }

    /// Asks the policy again about a stream held muted after the server moved it, if it has not spoken by then.
    private func holdAfterMove(_ origin: StreamOrigin) {
        let work = work
        Task {
            try? await Task.sleep(for: Self.holdAfterMove)
            work.yield(.holdExpired(origin))
        }
    }

    /// Tells the policy of a stream, except that a running stream that corks is reported paused only once it
    /// has stayed corked for `pauseSettling`.
    private mutating func reportStream(_ stream: SoundStream) {
        let origin = stream.origin
        lastReported[origin] = stream
        if stream.isRunning {
            unsettledPauses[origin] = nil
        } else if reportedRunning[origin] == true {
            guard unsettledPauses[origin] == nil else { return }
            let pause = nextPause
            nextPause += 1
            unsettledPauses[origin] = pause
            let work = work
            Task {
                try? await Task.sleep(for: Self.pauseSettling)
                work.yield(.pauseSettled(origin, pause: pause))
            }
            return
        }
        reportedRunning[origin] = stream.isRunning
        tell(.streamSeen(stream))
    }

    /// A stream ended: if the policy had changed it, the user's values go back into module-stream-restore's
    /// saved state, so the app's next stream does not start ducked or muted.
    private mutating func streamGone(_ origin: StreamOrigin) async {
        fades[origin] = nil
        unjournaled[origin] = nil
        reportedRunning[origin] = nil
        unsettledPauses[origin] = nil
        lastReported[origin] = nil
        processLines[origin] = nil
        tell(.streamGone(origin))
        let before = savedBeforePolicy.removeValue(forKey: origin) ?? nil
        guard let entry = ledger.remove(origin), let key = entry.restoreKey else { return }
        do {
            guard try await connection.streamRestoreEntry(key) != nil else { return }
            let mended = PulseStreamRestoreEntry(key: key, volume: entry.userVolume, muted: entry.userMuted, device: before?.device)
            try await connection.writeStreamRestoreEntry(mended)
            logger.info("\(origin) ended with a policy value in force; saved state of \(key) given back the user's values")
        } catch {
            logger.debug("no saved stream state to mend for \(key): \(error)")
        }
    }

    // MARK: Verdicts

    /// The verdicts the policy handed over since the last turn, in one turn: the ledger takes them all in
    /// first, so that one journal write (ahead of the first server write) covers every stream they change. A
    /// verdict says all of how a stream is to sound, so only a stream's latest one counts.
    private mutating func enforce(_ verdicts: [(StreamOrigin, StreamVerdict)]) async {
        var latest: [StreamOrigin: StreamVerdict] = [:]
        var order: [StreamOrigin] = []
        for (origin, verdict) in verdicts {
            if latest.updateValue(verdict, forKey: origin) == nil { order.append(origin) }
        }
        var planned: [(origin: StreamOrigin, before: PulseVolume?, writes: [StreamLedger.Write])] = []
        var entriesBefore: [StreamOrigin: StreamLedger.Entry] = [:]
        for origin in order {
            let verdict = latest[origin]!
            let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
            entriesBefore[origin] = ledger.entries[origin]
            unjournaled[origin] = nil
            let before = ledger.entries[origin]?.writtenVolume
            fades[origin] = nil
            planned.append((origin, before, ledger.apply(verdict, to: origin, device: device)))
        }
        // Every entry the turn needs goes to disk first, in one write. A stream whose entry cannot be written
        // (the disk is full) keeps its user's values: the policy does not hold silenced what a crash could leave
        // silenced with nothing on disk to undo it. Its verdict waits and is tried again.
        // Giving a stream back its user's values needs no entry, and is never held back.
        let refused = journalAhead(
            of: planned.filter { $0.writes.contains(where: holdsBack) }.map(\.origin)
        )
        if !refused.isEmpty {
            planned.removeAll { refused.contains($0.origin) }
            for origin in order where refused.contains(origin) {
                let verdict = latest[origin]!
                ledger.putBack(entriesBefore[origin], for: origin)
                unjournaled[origin] = verdict
                // What gives the stream back toward its user's values (an unmute, a louder volume) is made now.
                let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
                let givingBack = ledger.giveBack(verdict, to: origin, device: device)
                if !givingBack.isEmpty { planned.append((origin, nil, givingBack)) }
            }
            logger.debug("\(refused.count) verdicts not carried out: the stream journal cannot be written")
            scheduleJournalRetry()
        }
        // The writes of the turn are issued together (each stream's in order) and awaited together: one round
        // trip for the turn instead of one per write, and still no report is read before they are all done.
        var writesByStream: [[StreamLedger.Write]] = []
        var fading: [StreamOrigin] = []
        for (origin, before, writes) in planned {
            var direct: [StreamLedger.Write] = []
            for write in writes {
                if case .volume(_, let target) = write, let before, fadeMilliseconds > 0, origin.isSinkInput {
                    startFade(origin, from: before, to: target)
                } else {
                    if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
                    direct.append(write)
                }
            }
            if !direct.isEmpty { writesByStream.append(direct) }
            if fades[origin] != nil { fading.append(origin) }
        }
        let connection = connection
        let logger = logger
        await withTaskGroup(of: Void.self) { group in
            for writes in writesByStream {
                group.addTask {
                    for write in writes {
                        do { try await Self.issue(write, on: connection) } catch { logger.debug("\(write) failed: \(error)") }
                    }
                }
            }
        }
        for origin in fading { if let fade = fades[origin] { await continueFade(origin, fade.id) } }
    }

    private static func issue(_ write: StreamLedger.Write, on connection: PulseConnection) async throws {
        switch write {
        case .volume(.sinkInput(let index), let volume): try await connection.setSinkInputVolume(index, volume)
        case .volume(.sourceOutput(let index), let volume): try await connection.setSourceOutputVolume(index, volume)
        case .mute(.sinkInput(let index), let muted): try await connection.setSinkInputMute(index, muted)
        case .mute(.sourceOutput(let index), let muted): try await connection.setSourceOutputMute(index, muted)
        case .move(.sinkInput(let index), let sink): try await connection.moveSinkInput(index, toSink: sink)
        case .move(.sourceOutput(let index), let source): try await connection.moveSourceOutput(index, toSource: source)
        case .volume(.client, _), .mute(.client, _), .move(.client, _): break
        }
    }

    /// Ducking and its end are reached in steps over `duckFadeMs` (O7), never in one jump.
    private mutating func startFade(_ origin: StreamOrigin, from: PulseVolume, to: PulseVolume) {
        let steps = StreamLedger.fadeSteps(from: from, to: to, milliseconds: fadeMilliseconds, stepMilliseconds: 25)
        fades[origin] = (nextFade, steps)
        nextFade += 1
    }

    private mutating func continueFade(_ origin: StreamOrigin, _ id: Int) async {
        guard var fade = fades[origin], fade.id == id, !fade.steps.isEmpty else { return }
        let volume = fade.steps.removeFirst()
        fades[origin] = fade.steps.isEmpty ? nil : fade
        await perform(.volume(origin, volume))
        guard !fade.steps.isEmpty else { return }
        let work = work
        Task {
            try? await Task.sleep(for: Self.fadeStep)
            work.yield(.fadeStep(origin, fade: id))
        }
    }

    /// Tries the verdicts that could not be journaled again in a while, when the disk may have room.
    private mutating func scheduleJournalRetry() {
        guard !journalRetryPending else { return }
        journalRetryPending = true
        let work = work
        Task {
            try? await Task.sleep(for: Self.journalRetry)
            work.yield(.journalRetry)
        }
    }

    private mutating func perform(_ write: StreamLedger.Write) async {
        // A write whose journal entry could not be written is not made (a stream the server moved is then not
        // held muted; a fade step is skipped).
        guard journalAhead(of: write) || !holdsBack(write) else {
            logger.debug("\(write) not made: the stream journal cannot be written")
            ledger.notMade(write)
            return
        }
        if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
        do {
            try await Self.issue(write, on: connection)
        } catch {
            // The stream may have gone meanwhile; its removal event follows.
            logger.debug("\(write) failed: \(error)")
        }
    }

    /// Whether a write takes a stream farther from its user's values (a mute, a move, a quieter volume): only
    /// those wait for the journal; one that gives values back is made whatever the disk says.
    private func holdsBack(_ write: StreamLedger.Write) -> Bool {
        switch write {
        case .mute(_, let muted): return muted
        case .move: return true
        case .volume(let origin, let volume):
            guard let written = ledger.entries[origin]?.writtenVolume else { return false }
            return StreamLedger.loudness(volume) < StreamLedger.loudness(written)
        }
    }

    /// Shutdown: every stream the policy changed gets its user's values back before the daemon exits.
    private mutating func restoreEverything() async {
        fades.removeAll()
        let writes = ledger.restoreAll()
        for write in writes { await perform(write) }
        clearJournal()
        logger.info("gave \(writes.count) stream values back to their users")
    }
}

extension StreamOrigin {
    var isSinkInput: Bool {
        if case .sinkInput = self { return true }
        return false
    }
}
