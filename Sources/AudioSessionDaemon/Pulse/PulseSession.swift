import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionPolicy
import Logging
import PulseBackend

/// One connection to the sound server: the shell around `StreamMachine`, which decides. It turns libpulse's
/// events and replies into the machine's events, and carries out the machine's actions in one place
/// (`run(_:)`): the policy told, the server written, the journal written, questions answered, timers slept.
/// Its loop makes one server call at a time and waits for it, so every report it reads already shows its own
/// writes, and a difference can only be someone else's change.
struct PulseSession {
    let connection: PulseConnection
    /// Tells the policy a fact; it decides at once, and its verdicts wait in `takeVerdicts`.
    let tell: @Sendable (SoundFact) -> Void
    let work: AsyncStream<PulseWork>.Continuation
    /// How devices become ports; a reload changes them.
    var rules: PortRules
    let logger: Logger
    var machine: StreamMachine
    /// The stream journal (`streams.json`), when the daemon has a state directory: recovered from at connect,
    /// then written when the machine says.
    let journalPath: String?
    let serverAddress: String?
    var journal: JournalStreamKeeper?
    /// Takes the verdicts the policy handed over since the last `.verdicts` (`PulseService`).
    let takeVerdicts: @Sendable () -> [(StreamOrigin, StreamVerdict)]
    /// Called with a stream's or device's change event as the loop takes it: returns the info of the last change
    /// of that object read meanwhile (it replaced the queued one's); a change after this queues again.
    let changeTaken: @Sendable (PulseEvent) -> PulsePrefetch?
    /// When the last playback stream report was read: how long after it a moved stream was held, for the log.
    private var reportRead = ContinuousClock.now
    /// While a new playback stream's report is fed: its saved entry in module-stream-restore, read on libpulse's
    /// thread with its info, for the machine's `readRestoreEntry` (one round trip fewer before the orders).
    private var prefetchedRestoreEntry: (key: String, prefetch: PulsePrefetch)?
    /// A client's process and its process line, read as the client named its process (`EventSieve`, on
    /// libpulse's thread): an app connects before it opens its stream, so reading /proc then keeps it off the path
    /// from the stream's event to the orders that answer it.
    let clientLine: @Sendable (UInt32) -> (processID: Int32, line: [Int32])?

    enum Progress { case going, finished }

    init(
        connection: PulseConnection,
        tell: @escaping @Sendable (SoundFact) -> Void,
        work: AsyncStream<PulseWork>.Continuation,
        rules: PortRules,
        fadeMilliseconds: Int,
        logger: Logger,
        journalPath: String? = nil,
        serverAddress: String? = nil,
        takeVerdicts: @escaping @Sendable () -> [(StreamOrigin, StreamVerdict)],
        changeTaken: @escaping @Sendable (PulseEvent) -> PulsePrefetch?,
        clientLine: @escaping @Sendable (UInt32) -> (processID: Int32, line: [Int32])?
    ) {
        self.takeVerdicts = takeVerdicts
        self.clientLine = clientLine
        self.changeTaken = changeTaken
        self.journalPath = journalPath
        self.serverAddress = serverAddress
        self.connection = connection
        self.tell = tell
        self.work = work
        self.rules = rules
        self.machine = StreamMachine(fadeMilliseconds: fadeMilliseconds)
        self.logger = logger
    }

    /// Devices first (the policy needs the ports to route), then the streams already playing. Before any of
    /// it, the streams a previous daemon left changed (it crashed) get their user's values back, so that the
    /// ledger takes those as the user's.
    mutating func takeInventory() async throws {
        let info = try await connection.serverInfo()
        try await feed(.defaultSinkKnown(info.defaultSinkName))
        if let journalPath {
            let server = JournalServerIdentity(address: serverAddress, info: info)
            let keeper = await JournalRecovery(connection: connection, logger: logger).recover(
                path: journalPath,
                server: server
            )
            journal = keeper
            try await feed(.journalOpened(written: keeper.written, mayHoldOlderEntries: keeper.mayHoldOlderEntries))
        }
        try await reportDevices()
        for input in try await connection.sinkInputs() { try await feed(report(input)) }
        for output in try await connection.sourceOutputs() { try await feed(.streamReported(StreamReport(output))) }
        try await feed(.inventoryTaken)
    }

    mutating func handle(_ item: PulseWork) async throws -> Progress {
        switch item {
        case .event(.disconnected(let reason), _):
            throw DaemonError("sound server connection lost: \(reason)")
        case .event(.changed(let facility, let change, let index), let prefetch):
            try await handle(facility, change, index, prefetch)
        case .verdicts:
            break
        case .timerFired(let timer):
            try await feed(.timerFired(timer))
        case .fade(let milliseconds):
            try await feed(.fadeChanged(milliseconds: milliseconds))
        case .rules(let newRules):
            rules = newRules
            try await reportDevices()
        case .shutdown:
            try await feed(.shutdown)
            return .finished
        }
        // The policy decided on what this turn told it while it was told: its verdicts are carried out now, in
        // this turn (and what they bring, until there is nothing more).
        while true {
            let verdicts = takeVerdicts()
            if verdicts.isEmpty { break }
            try await feed(.verdictsHandedOver(verdicts.map { StreamMachine.HandedVerdict($0.0, $0.1) }))
        }
        try await feed(.turnEnded)
        return .going
    }

    private mutating func handle(
        _ facility: PulseFacility,
        _ change: PulseChange,
        _ index: UInt32,
        _ prefetch: PulsePrefetch?
    ) async throws {
        var prefetch = prefetch
        if change == .change, let latest = changeTaken(.changed(facility, change, index: index)) { prefetch = latest }
        switch (facility, change) {
        case (.sink, .remove): try await feed(.sinkRemoved(index))
        case (.source, .remove): try await feed(.sourceRemoved(index))
        case (.sink, _):
            if let sink = try await sink(index, prefetched: prefetch) { try await feed(report(sink)) }
        case (.source, _):
            if let source = try await source(index, prefetched: prefetch) { try await feed(report(source)) }
        case (.sinkInput, .remove): try await feed(.streamRemoved(.sinkInput(index)))
        case (.sourceOutput, .remove): try await feed(.streamRemoved(.sourceOutput(index)))
        case (.sinkInput, _):
            if let input = try await sinkInput(index, prefetched: prefetch) {
                if let prefetch, prefetch.restoreEntryRead, let key = input.properties["module-stream-restore.id"] {
                    prefetchedRestoreEntry = (key, prefetch)
                }
                defer { prefetchedRestoreEntry = nil }
                try await feed(report(input))
            }
        case (.sourceOutput, _):
            if let output = try await sourceOutput(index, prefetched: prefetch) {
                try await feed(.streamReported(StreamReport(output)))
            }
        case (.server, _): try await feed(.defaultSinkReported(connection.serverInfo().defaultSinkName))
        // Clients', cards' and modules' events stay in the `EventSieve`.
        default: break
        }
    }

    /// The connection ended: the journal's files are closed (the journal stays in them).
    mutating func closeJournal() {
        journal?.close()
    }

    /// A playback stream as the server has it: the info asked for as its `new` event was read, while no request
    /// of ours came after it (it then shows every write of ours, as a query now would); else asked for now.
    private func sinkInput(_ index: UInt32, prefetched: PulsePrefetch?) async throws -> PulseSinkInput? {
        if let prefetched, case .sinkInput(let input) = prefetched.info, connection.isCurrent(prefetched) {
            return input
        }
        return try await connection.sinkInput(index)
    }

    /// An output device, as `sinkInput(_:prefetched:)`.
    private func sink(_ index: UInt32, prefetched: PulsePrefetch?) async throws -> PulseSink? {
        if let prefetched, case .sink(let sink) = prefetched.info, connection.isCurrent(prefetched) { return sink }
        return try await connection.sink(index)
    }

    /// An input device, as `sinkInput(_:prefetched:)`.
    private func source(_ index: UInt32, prefetched: PulsePrefetch?) async throws -> PulseSource? {
        if let prefetched, case .source(let source) = prefetched.info, connection.isCurrent(prefetched) {
            return source
        }
        return try await connection.source(index)
    }

    /// A record stream, as `sinkInput(_:prefetched:)`.
    private func sourceOutput(_ index: UInt32, prefetched: PulsePrefetch?) async throws -> PulseSourceOutput? {
        if let prefetched, case .sourceOutput(let output) = prefetched.info, connection.isCurrent(prefetched) {
            return output
        }
        return try await connection.sourceOutput(index)
    }

    // MARK: Reports

    private mutating func reportDevices() async throws {
        for sink in try await connection.sinks().sorted(by: { $0.index < $1.index }) { try await feed(report(sink)) }
        for source in try await connection.sources().sorted(by: { $0.index < $1.index }) {
            try await feed(report(source))
        }
    }

    private func report(_ sink: PulseSink) -> StreamMachine.Event {
        var properties = sink.properties
        properties["sink.name"] = sink.name
        properties["port.name"] = sink.activePort
        return .sinkReported(sink.index, name: sink.name, port: rules.outputPort(of: properties))
    }

    private func report(_ source: PulseSource) -> StreamMachine.Event {
        guard source.monitorOfSink == nil else {
            return .sourceReported(source.index, name: source.name, port: nil, isMonitor: true)
        }
        var properties = source.properties
        properties["source.name"] = source.name
        properties["port.name"] = source.activePort
        return .sourceReported(source.index, name: source.name, port: rules.inputPort(of: properties), isMonitor: false)
    }

    /// A playback stream's report, with its process line (/proc) when it first appears (section 6b).
    private mutating func report(_ input: PulseSinkInput) -> StreamMachine.Event {
        reportRead = .now
        let report = StreamReport(input)
        guard machine.needsProcessLine(report.origin) else { return .streamReported(report) }
        guard let processID = input.properties["application.process.id"].flatMap(Int32.init) else {
            return .streamReported(report, processLine: [])
        }
        return .streamReported(report, processLine: processLine(of: processID, client: input.clientIndex))
    }

    /// The line read when the stream's client connected, when it is of the process the stream names (an app may
    /// name another); else read now.
    private func processLine(of processID: Int32, client: UInt32?) -> [Int32] {
        if let client, let known = clientLine(client), known.processID == processID {
            return known.line
        }
        return ProcessLine.of(processID)
    }

    // MARK: Actions

    /// Hands the machine an event and carries out what it returns, in order; an action that asks a question
    /// (always the last of its list) is answered at once, and what the answer brings is carried out next.
    private mutating func feed(_ event: StreamMachine.Event) async throws {
        var pending = machine.handle(event)[...]
        while let action = pending.popFirst() {
            if let answer = try await run(action) { pending.append(contentsOf: machine.handle(answer)) }
        }
    }

    /// Carries out one action; returns the answer to a question.
    private mutating func run(_ action: StreamAction) async throws -> StreamMachine.Event? {
        logger.trace("\(action)")
        switch action {
        case .tell(let fact):
            tell(fact)
        case .write(let write):
            await issue([write])
        case .writeTogether(let writesByStream):
            // One stream's writes stay in their order; the server carries out the requests of one connection in
            // the order they are sent, so sending them all at once keeps it.
            await issue(writesByStream.flatMap { $0 })
        case .writeJournal(let entries):
            return .journalWritten(succeeded: journal?.sync(entries) ?? true)
        case .readRestoreEntry(let key):
            if let prefetched = prefetchedRestoreEntry, prefetched.key == key,
                connection.isRestoreEntryCurrent(prefetched.prefetch)
            {
                return .restoreEntryRead(prefetched.prefetch.restoreEntry)
            }
            return .restoreEntryRead((try? await connection.streamRestoreEntry(key)) ?? nil)
        case .mendRestoreEntry(let origin, let entry):
            do {
                guard try await connection.streamRestoreEntry(entry.key) != nil else { return nil }
                try await connection.writeStreamRestoreEntry(entry)
                logger.info(
                    "\(origin) ended with a policy value in force; saved state of \(entry.key) given back the user's values"
                )
            } catch {
                logger.debug("no saved stream state to mend for \(entry.key): \(error)")
            }
        case .askCorked(let origin):
            let corked: Bool? =
                switch origin {
                case .sinkInput(let index): try await connection.sinkInput(index)?.corked
                case .sourceOutput(let index): try await connection.sourceOutput(index)?.corked
                case .client: nil
                }
            return .corkedReported(corked)
        case .askSinkListed(let name):
            return .sinkListed(try await connection.sinks().contains(where: { $0.name == name }))
        case .startTimer(let timer, let delay):
            // On libpulse's thread, like everything else of the session's (no timer outlives the connection).
            let work = work
            _ = connection.executor.startTimer(after: delay) { work.yield(.timerFired(timer)) }
        case .log(let line):
            log(line)
        }
        return nil
    }

    /// Sends the writes at once and waits for every answer. A write that fails is logged: the stream may have
    /// gone meanwhile, and its removal event follows.
    private func issue(_ writes: [StreamLedger.Write]) async {
        let changes = writes.compactMap(PulseStreamChange.init)
        for (change, error) in zip(changes, await connection.apply(changes)) {
            if let error { logger.debug("\(change) failed: \(error)") }
        }
    }

    private func log(_ line: StreamLogLine) {
        switch line {
        case .policyValuesTakenBack(let origin):
            logger.info(
                "\(origin) started with the policy's values the server kept from its app's last stream; given its user's values"
            )
        case .policyValuesOfAnotherStreamTakenBack(let origin, let key):
            logger.info(
                "\(origin) started with the policy's values of another stream of its kind (\(key)), which the server saved for it; given that stream's user values"
            )
        case .heldAfterMove(let origin):
            logger.info(
                "\(origin) moved by the server: held silent \(ContinuousClock.now - reportRead) after the report"
            )
        case .verdictsWaitForJournal(let count):
            logger.debug("\(count) verdicts not carried out: the stream journal cannot be written")
        case .writeNotMade(let write):
            logger.debug("\(write) not made: the stream journal cannot be written")
        case .gaveBack(let writes):
            logger.info("gave \(writes) stream values back to their users")
        }
    }
}

extension PulseStreamChange {
    /// The server's request for a ledger's write; nil for a client's own stream, which the server does not have.
    init?(_ write: StreamLedger.Write) {
        switch write {
        case .volume(.sinkInput(let index), let volume): self = .sinkInputVolume(index, volume)
        case .volume(.sourceOutput(let index), let volume): self = .sourceOutputVolume(index, volume)
        case .mute(.sinkInput(let index), let muted): self = .sinkInputMute(index, muted)
        case .mute(.sourceOutput(let index), let muted): self = .sourceOutputMute(index, muted)
        case .move(.sinkInput(let index), let sink): self = .moveSinkInput(index, toSink: sink)
        case .move(.sourceOutput(let index), let source): self = .moveSourceOutput(index, toSource: source)
        case .volume(.client, _), .mute(.client, _), .move(.client, _): return nil
        }
    }
}

extension StreamReport {
    init(_ input: PulseSinkInput) {
        self.init(
            origin: .sinkInput(input.index),
            volume: input.volume,
            muted: input.muted,
            device: input.sinkIndex,
            corked: input.corked,
            properties: input.properties
        )
    }

    init(_ output: PulseSourceOutput) {
        self.init(
            origin: .sourceOutput(output.index),
            volume: output.volume,
            muted: output.muted,
            device: output.sourceIndex,
            corked: output.corked,
            properties: output.properties
        )
    }
}
