import AudioSessionPolicy
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the event log into a scenario that replays (`audiosessionctl replay`) to the decisions the daemon
/// made: the sessions declared as they were, a step for each engine event, `wait:` steps so that the grace
/// timers fire where they fired, and after each step an `expect:` with the states and notifications the
/// daemon produced, so that a replay that differs fails. What a scenario cannot say is listed in
/// docs/STATE.md and, for an export that meets it, in the warnings (also comments at the top of the file).
public enum JournalExport {
    /// The event log's records in a state directory, oldest first, and the lines that could not be read.
    public static func records(inStateDirectory directory: String) -> (records: [JournalRecord], problems: [String]) {
        var problems: [String] = []
        let records = JournalEventLogFiles.read(directory: directory, problems: &problems)
        return (records, problems)
    }

    public struct Output: Sendable {
        public var yaml: String
        public var warnings: [String]
        /// The engine events exported, and how many of them have expectations (those from `since` on).
        public var events: Int
        public var checkedEvents: Int
    }

    public struct ExportError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The scenario for the daemon run that `since` falls in (the last run when nil), from the start of the
    /// run or the last checkpoint before `since`; expectations from `since` on.
    public static func scenario(from records: [JournalRecord], since: Double? = nil, source: String = "the event log")
        throws -> Output
    {
        let origins = records.indices.filter { records[$0].kind != .event }
        guard !origins.isEmpty else {
            throw ExportError(
                description:
                    "\(source) has no start of a daemon run (nothing recorded yet, or its beginning was rotated away)"
            )
        }
        let origin: Int
        if let since {
            origin = origins.last { records[$0].time <= since } ?? origins[0]
        } else {
            // The last run, from its start, or from the oldest checkpoint kept if its start was rotated away.
            let start = origins.last { records[$0].kind == .start }
            origin = start ?? origins[0]
        }
        let end = records.indices.first { $0 > origin && records[$0].kind == .start } ?? records.endIndex
        let events = records[(origin + 1)..<end].filter { $0.kind == .event }
        var exporter = JournalExporter(origin: records[origin], since: since ?? -Double.infinity)
        exporter.declare(events)
        for record in events { exporter.export(record) }
        return Output(
            yaml: exporter.finish(source: source, events: events),
            warnings: exporter.warnings,
            events: events.count,
            checkedEvents: events.filter { $0.time >= (since ?? -Double.infinity) }.count
        )
    }
}

/// One export, record by record.
struct JournalExporter {
    typealias Text = JournalScenarioText

    let origin: JournalRecord
    let since: Double
    private(set) var warnings: [String] = []
    /// Scenario session names, by the daemon's session number, in declaration order.
    private var names: [Int: String] = [:]
    private var order: [Int] = []
    private var declarations: [Int: JournalDeclaration] = [:]
    /// Sessions as the daemon has them now.
    private var alive: Set<Int> = []
    private var states: [Int: JournalSessionState] = [:]
    /// Each stream's session and direction, and the running streams of each session and direction: a
    /// scenario session has one output and one input stream.
    private var streams: [Int: (session: Int, direction: StreamDirection)] = [:]
    private var running: [Int: [StreamDirection: Set<Int>]] = [:]
    /// The replay's virtual clock and the engine's timers on it.
    private var now = 0
    private var due: [Int: Int] = [:]
    private var lastTime: Double
    /// What happened since the last `expect`.
    private var changed: [Int: JournalSessionState] = [:]
    private var notifications: [JournalNotification] = []
    private var notificationsComparable = true
    private var checking = false
    private var steps = Text()
    private var stepCount = 0

    init(origin: JournalRecord, since: Double) {
        self.origin = origin
        self.since = since
        self.lastTime = origin.time
    }

    // MARK: Sessions

    /// Every session of the export, named uniquely, declared as it was created (or, from a checkpoint, as it is
    /// there).
    mutating func declare(_ events: [JournalRecord]) {
        var used: Set<String> = []
        func add(_ session: Int, _ declaration: JournalDeclaration) {
            guard names[session] == nil else { return }
            var name = declaration.name
            var number = 2
            while used.contains(name) {
                name = "\(declaration.name) #\(number)"
                number += 1
            }
            used.insert(name)
            names[session] = name
            declarations[session] = declaration
            order.append(session)
        }
        for session in origin.sessions ?? [] {
            alive.insert(session.session)
            states[session.session] = session.state
            for stream in session.streams {
                streams[stream.stream] = (session.session, stream.direction)
                if stream.running {
                    running[session.session, default: [:]][stream.direction, default: []].insert(stream.stream)
                }
            }
            var declaration = session.declaration
            if declaration.stream == nil {
                declaration.category = session.state.category
                declaration.mode = session.state.mode
                declaration.options = Self.explicitOptions(session.state)
            }
            declaration.appState = session.state.appState
            add(session.session, declaration)
        }
        for record in events {
            if let event = record.event, event.type == "sessionCreated", let session = event.session,
                let declaration = event.declaration
            {
                add(session, declaration)
            }
        }
    }

    /// The options to declare for a session to report `state.options`: those the category and mode imply
    /// (C3, C5) left out, as a declaration may not name some of them.
    static func explicitOptions(_ state: JournalSessionState) -> [String] {
        var implied: Set<String> = []
        if state.category == .ambient || state.options.contains("duckOthers")
            || state.options.contains("interruptSpokenAudioAndMixWithOthers")
        {
            implied.insert("mixWithOthers")
        }
        if state.mode == .voiceChat || state.mode == .videoChat { implied.insert("allowBluetooth") }
        if state.mode == .videoChat { implied.insert("defaultToSpeaker") }
        return state.options.filter { !implied.contains($0) }
    }

    private func name(_ session: Int?) -> String { session.flatMap { names[$0] } ?? "?" }
    private func quotedName(_ session: Int?) -> String { Text.quoted(name(session)) }

    /// `callExemptApps` for the scenario. The daemon decides a client's A2 exemption by who the client is, a
    /// scenario by the session's name: a client found exempt joins the list by its scenario name, one found
    /// not exempt leaves it (an unaware app of that `application.name` would leave with it: a rare clash).
    private func exemptNames(_ configured: [String]) -> [String] {
        var names = configured
        for session in order {
            guard let exempt = declarations[session]?.callExempt else { continue }
            let name = name(session)
            names.removeAll { $0 == name }
            if exempt { names.append(name) }
        }
        return names
    }

    // MARK: Events

    mutating func export(_ record: JournalRecord) {
        guard let event = record.event else { return }
        if !checking && record.time >= since {
            startChecking()
        }
        let before = stepCount
        advanceClock(to: record, firing: event.type == "timerFired" ? event.timer : nil)
        steps.comment("\(UTCTime.clock(record.time)) \(describe(event))", indent: "  ")
        emitSteps(for: event, error: record.error)
        for timer in record.timersStarted ?? [] { due[timer.timer] = now + timer.milliseconds }
        for timer in record.timersCancelled ?? [] { due[timer] = nil }
        for state in record.states ?? [] {
            changed[state.session] = state
            states[state.session] = state
        }
        notifications += record.notifications ?? []
        if stepCount > before && checking { expect() }
    }

    /// A `wait:` so that the replay's timers fire as the daemon's did: up to a timer's due time when the daemon
    /// fired it, else as long as the daemon waited but short of any timer the daemon had not fired yet.
    private mutating func advanceClock(to record: JournalRecord, firing timer: Int?) {
        let elapsed = max(0, Int(((record.time - lastTime) * 1000).rounded()))
        lastTime = record.time
        guard !due.isEmpty else { return }
        var target: Int
        if let timer, let at = due[timer] {
            // Fired by a `wait:`, even of 0 ms (the runner fires what is due by the end of a wait).
            target = max(now, at)
            due[timer] = nil
            steps.line("  - wait: \(Text.duration(target - now))")
            stepCount += 1
            now = target
            for (id, at) in due where at <= now { due[id] = nil }
            return
        } else {
            target = now + elapsed
            if let next = due.values.min() { target = min(target, next - 1) }
        }
        guard target > now else { return }
        steps.line("  - wait: \(Text.duration(target - now))")
        stepCount += 1
        now = target
        // Timers the replay fires on the way are due by now; the daemon's record of each follows.
        for (id, at) in due where at <= now { due[id] = nil }
    }

    private mutating func emitSteps(for event: JournalEvent, error: String?) {
        let session = event.session
        var errorLine: String? { error.map { "    error: \($0)" } }
        func step(_ text: String, _ extra: [String] = []) {
            steps.line("  - \(text)")
            for line in extra { steps.line(line) }
            stepCount += 1
        }
        switch event.type {
        case "sessionCreated":
            if let session { alive.insert(session) }
        case "sessionRemoved":
            guard let session else { return }
            alive.remove(session)
            // The daemon removes an aware app's session when its client goes; the scenario keeps it, so it stops
            // its streams and deactivates it, which ends what it interrupted as the removal does.
            for direction in [StreamDirection.output, .input] where !(running[session]?[direction] ?? []).isEmpty {
                step("\(direction == .output ? "pause" : "stopRecording"): \(quotedName(session))")
            }
            running[session] = nil
            if declarations[session]?.stream == nil, let state = states[session]?.state, state != .inactive {
                step("deactivate: \(quotedName(session))", ["    notifyOthers: false"])
            }
            states[session] = nil
            changed[session] = nil
        case "setCategory":
            var lines = [
                "    category: \(event.category?.rawValue ?? "soloAmbient")",
                "    mode: \(event.mode?.rawValue ?? "default")",
                "    options: \(Text.list(event.options ?? []))",
            ]
            if let errorLine { lines.append(errorLine) }
            step("setCategory: \(quotedName(session))", lines)
        case "activate":
            step("activate: \(quotedName(session))", errorLine.map { [$0] } ?? [])
        case "deactivate":
            var lines = ["    notifyOthers: \(event.notifyOthers ?? false)"]
            if let errorLine { lines.append(errorLine) }
            step("deactivate: \(quotedName(session))", lines)
        case "streamStarted":
            guard let stream = event.stream, let session else { return }
            let direction = event.direction ?? .output
            streams[stream] = (session, direction)
            running[session, default: [:]][direction, default: []].insert(stream)
            step("\(direction == .output ? "play" : "record"): \(quotedName(session))", errorLine.map { [$0] } ?? [])
        case "streamPaused", "streamRemoved":
            guard let stream = event.stream, let (session, direction) = streams[stream] else { return }
            if event.type == "streamRemoved" { streams[stream] = nil }
            guard running[session]?[direction]?.remove(stream) != nil else { return }
            // Another stream of the session still runs: the scenario's one stream keeps running.
            guard running[session]?[direction]?.isEmpty == true else { return }
            step("\(direction == .output ? "pause" : "stopRecording"): \(quotedName(session))")
        case "silentSwitch":
            step("silentSwitch: \(event.silentSwitch?.rawValue ?? "ring")", errorLine.map { [$0] } ?? [])
        case "screenLocked":
            step("screen: \(event.locked == true ? "locked" : "unlocked")", errorLine.map { [$0] } ?? [])
        case "appState":
            step(
                "\(event.appState == .background ? "background" : "foreground"): \(quotedName(session))",
                errorLine.map { [$0] } ?? []
            )
        case "portConnected", "portDisconnected", "outputSelected":
            guard let port = event.port else { return }
            let word = [
                "portConnected": "connect", "portDisconnected": "disconnect", "outputSelected": "selectOutput",
            ][event.type]!
            step("\(word): \(port.rawValue)", errorLine.map { [$0] } ?? [])
        case "outputOverridden":
            var lines = ["    port: \(event.speakerOverride?.rawValue ?? "none")"]
            if let errorLine { lines.append(errorLine) }
            step("overrideOutput: \(quotedName(session))", lines)
        case "mediaServicesLost", "mediaServicesReset":
            // The scenario has every session from the start and keeps the ones the daemon removed: they hear
            // this too, so the notifications cannot be compared.
            if Set(order) != alive { notificationsComparable = false }
            if event.type == "mediaServicesReset" {
                streams.removeAll()
                running.removeAll()
            }
            step("mediaServices: \(event.type == "mediaServicesLost" ? "lost" : "reset")", errorLine.map { [$0] } ?? [])
        case "timerFired":
            break
        case "callExemptionDecided":
            // Only after a reload, which the export cannot replay either (see configurationChanged).
            break
        case "playerFound", "playerLost":
            // A scenario's sessions are players from the start or never (`mediaPlayer: true`); the export
            // replays the daemon's players as the unaware apps they were declared as.
            break
        case "configurationChanged":
            let text =
                "the configuration was reloaded at \(UTCTime.clock(lastTime)); a scenario cannot change it: the replay goes on with the one before (export with --since after the reload)"
            warnings.append(text)
            steps.comment("LIMIT: " + text, indent: "  ")
        default:
            warnings.append("unknown event \(event.type) skipped")
        }
    }

    /// The first event with expectations: the state reached so far is checked once, in full, and the
    /// notifications before it are not.
    private mutating func startChecking() {
        checking = true
        notificationsComparable = true
        if stepCount > 0 {
            let current = states.filter { alive.contains($0.key) }
            // The replay's notifications so far are compared by no expect: the first one leaves them out.
            notificationsComparable = false
            if !current.isEmpty {
                notificationsComparable = true
                steps.line("  - expect:")
                steps.line("      sessions:")
                for session in order where current[session] != nil {
                    steps.line("        \(quotedName(session)): \(Text.expectation(current[session]!))")
                }
                stepCount += 1
            }
        }
        changed.removeAll()
        notifications.removeAll()
    }

    private mutating func expect() {
        let sessions = order.filter { changed[$0] != nil && alive.contains($0) }
        let texts = notifications.compactMap { Text.notification($0, session: name($0.session)) }
        defer {
            changed.removeAll()
            notifications.removeAll()
            notificationsComparable = true
        }
        guard !sessions.isEmpty || notificationsComparable else { return }
        steps.line("  - expect:")
        if !sessions.isEmpty {
            steps.line("      sessions:")
            for session in sessions {
                steps.line("        \(quotedName(session)): \(Text.expectation(changed[session]!))")
            }
        }
        if !notificationsComparable {
            steps.comment(
                "notifications not compared: sessions the daemon did not have then hear this in the replay",
                indent: "      "
            )
        } else if texts.isEmpty {
            steps.line("      notifications: []")
        } else {
            steps.line("      notifications:")
            for text in texts { steps.line("        - \(text)") }
        }
        stepCount += 1
    }

    // MARK: The file

    mutating func finish(source: String, events: [JournalRecord]) -> String {
        if checking && (!changed.isEmpty || !notifications.isEmpty) { expect() }
        if origin.kind == .checkpoint {
            warnings.append(
                "the export starts at a checkpoint (\(UTCTime.clock(origin.time))), not at the daemon's start: the sessions there are brought up approximately (their interruptions and pending timers are not)"
            )
        }
        var file = Text()
        let first = events.first?.time ?? origin.time
        let last = events.last?.time ?? origin.time
        file.comment(
            "Exported by `audiosessionctl journal export` from \(source): \(events.count) engine events, \(UTCTime.iso8601(first)) to \(UTCTime.iso8601(last))."
        )
        file.comment(
            "Replay: audiosessionctl replay FILE. Each expect is what the daemon produced; a replay that differs fails."
        )
        for warning in warnings { file.comment("LIMIT: \(warning)") }
        file.line("name: \(Text.quoted("journal export \(UTCTime.iso8601(first)) to \(UTCTime.iso8601(last))"))")
        if var config = origin.config {
            config.callExemptApps = exemptNames(config.callExemptApps)
            if config.policyConfig != .standard { file.config(config) }
        }
        let device =
            origin.device
            ?? JournalDeviceState(outputs: [.speaker], inputs: [.builtInMic], silentSwitch: .ring, screenLocked: false)
        file.line("device:")
        file.line("  outputs: \(Text.list(device.outputs.map(\.rawValue)))")
        file.line("  inputs: \(Text.list(device.inputs.map(\.rawValue)))")
        file.line("  silentSwitch: \(device.silentSwitch.rawValue)")
        file.line("  screen: \(device.screenLocked ? "locked" : "unlocked")")
        file.line("sessions:")
        if order.isEmpty { file.line("  \(Text.quoted("(no session)")): {}") }
        for session in order {
            file.line("  \(quotedName(session)): \(Self.declaration(declarations[session]!))")
        }
        file.line("steps:")
        var setup = Text()
        if let selection = device.selection { setup.line("  - selectOutput: \(selection.rawValue)") }
        setup.lines.forEach { file.line($0) }
        bringUpCheckpointSessions(into: &file)
        steps.lines.forEach { file.line($0) }
        if steps.lines.isEmpty && setup.lines.isEmpty { file.line("  - wait: 0ms") }
        return file.text
    }

    /// From a checkpoint: each session's running streams are started, active sessions without one activated.
    private mutating func bringUpCheckpointSessions(into file: inout Text) {
        guard origin.kind == .checkpoint else { return }
        for session in origin.sessions ?? [] {
            for stream in session.streams where stream.running {
                file.line("  - \(stream.direction == .output ? "play" : "record"): \(quotedName(session.session))")
            }
            if session.state.state == .active && !session.streams.contains(where: \.running)
                && session.declaration.stream == nil
            {
                file.line("  - activate: \(quotedName(session.session))")
            }
            if session.state.state == .interrupted {
                warnings.append(
                    "\(name(session.session)) was interrupted at the checkpoint; the replay cannot start it so"
                )
            }
        }
        if !(origin.timers ?? []).isEmpty {
            warnings.append("timers pending at the checkpoint are not replayed")
        }
    }

    static func declaration(_ declaration: JournalDeclaration) -> String {
        var pairs: [(String, String)] = []
        if let stream = declaration.stream {
            // An empty value matches as no value would (no rule may match an empty one), and a scenario cannot
            // write one.
            let properties = stream.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map {
                ($0.key, Text.quoted($0.value))
            }
            pairs.append(("stream", properties.isEmpty ? "{}" : Text.flow(properties)))
        } else {
            pairs.append(("category", declaration.category.rawValue))
            if declaration.mode != .default { pairs.append(("mode", declaration.mode.rawValue)) }
            if !declaration.options.isEmpty { pairs.append(("options", Text.list(declaration.options))) }
            if declaration.call { pairs.append(("call", "true")) }
        }
        if declaration.appState == .background { pairs.append(("appState", "background")) }
        return Text.flow(pairs)
    }

    private func describe(_ event: JournalEvent) -> String {
        var parts = [event.type]
        if let session = event.session { parts.append(name(session)) }
        if let stream = event.stream { parts.append("stream \(stream)") }
        if let port = event.port { parts.append(port.rawValue) }
        if let timer = event.timer { parts.append("timer \(timer)") }
        return parts.joined(separator: " ")
    }
}
