import AudioSessionPolicy

/// Replays a scenario against the pure engine, checking each step's error and each `expect`.
public struct ScenarioRunner {
    private var engine: PolicyEngine
    private let scenario: Scenario
    private let names: SessionNames
    private var clock = VirtualClock()
    /// Notifications sent since the previous `expect`.
    private var unchecked: [SentNotification] = []
    private var stepOfEvent: [EventNumber: Int] = [:]
    private var failures: [StepFailure] = []
    private var timeline: [TimelineRow] = []

    /// Replays `scenario` from its first step to its last; a failing step does not stop the replay.
    public static func run(_ scenario: Scenario) -> ScenarioResult {
        var runner = ScenarioRunner(scenario)
        runner.setUp()
        for step in scenario.steps { runner.perform(step) }
        return ScenarioResult(
            scenario: scenario,
            failures: runner.failures,
            timeline: runner.timeline,
            names: runner.names,
            stepOfEvent: runner.stepOfEvent
        )
    }

    private init(_ scenario: Scenario) {
        self.scenario = scenario
        self.names = SessionNames(scenario.sessions.map(\.name))
        let device = scenario.device
        self.engine = PolicyEngine(
            config: scenario.config,
            outputs: device.outputs,
            inputs: device.inputs,
            silentSwitch: device.silentSwitch,
            screenLocked: device.screenLocked
        )
    }

    private mutating func setUp() {
        for (index, spec) in scenario.sessions.enumerated() {
            let outcome = engine.handle(.sessionCreated(SessionID(index), spec.declaration))
            stepOfEvent[engine.eventNumber] = 0
            if let error = outcome.error {
                failures.append(
                    StepFailure(
                        step: nil,
                        location: spec.location,
                        expected: "session \(spec.name) to be created",
                        actual: error.description,
                        reasons: []
                    )
                )
            }
        }
    }

    private mutating func perform(_ step: Step) {
        var errors: [PolicyError] = []
        let alreadySent = unchecked.count
        switch step.action {
        case .expect(let expectation):
            check(expectation, at: step)
        case .wait(let milliseconds):
            let end = clock.now + milliseconds
            while let timer = clock.popDue(upTo: end) {
                errors += handleWithPlayers(.timerFired(timer), step: step)
            }
            clock.now = end
        default:
            for event in events(for: step.action) {
                errors += handleWithPlayers(event, step: step)
            }
        }
        checkError(errors.first, at: step)
        let explainer = Explainer(names: names, stepOfEvent: stepOfEvent)
        let sent = unchecked.dropFirst(alreadySent).map { explainer.format($0) + ": " + explainer.describe($0.reason) }
        timeline.append(TimelineRow(step: step, sessions: snapshots(), error: errors.first, notifications: sent))
    }

    /// Handles `event` and then what the players do about it: against the pure engine a player that answers
    /// obeys at once (POLICY section 6b), so the daemon's pause or play takes effect in the same step.
    private mutating func handleWithPlayers(_ event: PolicyEvent, step: Step) -> [PolicyError] {
        var queue = [event]
        var errors: [PolicyError] = []
        while !queue.isEmpty {
            var obeyed: [PolicyEvent] = []
            if let error = handle(queue.removeFirst(), step: step, players: &obeyed) { errors.append(error) }
            queue += obeyed
        }
        return errors
    }

    private mutating func handle(_ event: PolicyEvent, step: Step, players obeyed: inout [PolicyEvent])
        -> PolicyError?
    {
        let outcome = engine.handle(event)
        stepOfEvent[engine.eventNumber] = step.number
        for action in outcome.actions {
            switch action {
            case .notify(let session, let notification, let reason):
                unchecked.append(SentNotification(session: session, notification: notification, reason: reason))
            case .startTimer(let timer, let milliseconds):
                clock.start(timer, after: milliseconds)
            case .cancelTimer(let timer):
                clock.cancel(timer)
            case .setStream:
                break
            case .pausePlayer(let session, _):
                if let stream = answeringPlayerStream(session) { obeyed.append(.streamPaused(stream)) }
            case .playPlayer(let session, _):
                if let stream = answeringPlayerStream(session) {
                    obeyed.append(.streamStarted(stream, session: session, direction: .output))
                }
            }
        }
        return outcome.error
    }

    /// The output stream of a player that obeys the daemon; nil for one declared with `answers: false`.
    private func answeringPlayerStream(_ session: SessionID) -> StreamID? {
        let name = names.name(of: session)
        guard scenario.sessions.first(where: { $0.name == name })?.playerAnswers == true else { return nil }
        return names.stream(of: name, .output)
    }

    /// The engine events a step stands for; none for a pause of a stream that never started.
    private func events(for action: StepAction) -> [PolicyEvent] {
        switch action {
        case .activate(let name): [.activate(names[name])]
        case .deactivate(let name, let notifyOthers): [.deactivate(names[name], notifyOthers: notifyOthers)]
        case .setCategory(let name, let category, let mode, let options):
            [.setCategory(names[name], category, mode: mode, options: options)]
        case .play(let name):
            [.streamStarted(names.stream(of: name, .output), session: names[name], direction: .output)]
        case .record(let name):
            [.streamStarted(names.stream(of: name, .input), session: names[name], direction: .input)]
        case .pause(let name): pauseEvents(name, .output)
        case .stopRecording(let name): pauseEvents(name, .input)
        case .silentSwitch(let position): [.silentSwitch(position)]
        case .screenLocked(let locked): [.screenLocked(locked)]
        case .background(let name): [.appState(names[name], .background)]
        case .foreground(let name): [.appState(names[name], .foreground)]
        case .connect(let port): [.portConnected(port)]
        case .disconnect(let port): [.portDisconnected(port)]
        case .selectOutput(let port): [.outputSelected(port)]
        case .overrideOutput(let name, let override): [.outputOverridden(names[name], override)]
        case .mediaServicesLost: [.mediaServicesLost]
        case .mediaServicesReset: [.mediaServicesReset]
        case .wait, .expect: []
        }
    }

    private func pauseEvents(_ name: String, _ direction: StreamDirection) -> [PolicyEvent] {
        let stream = names.stream(of: name, direction)
        return engine.streamIDs(of: names[name]).contains(stream) ? [.streamPaused(stream)] : []
    }

    private func snapshots() -> [SessionSnapshot] {
        scenario.sessions.indices.compactMap { engine.snapshot(of: SessionID($0)) }
    }

    // MARK: Checks

    private mutating func checkError(_ error: PolicyError?, at step: Step) {
        guard error?.code != step.expectedError else { return }
        let expected = step.expectedError.map { "the step to fail with \($0.rawValue)" } ?? "the step to succeed"
        let actual = error.map { "it failed with \($0)" } ?? "it succeeded"
        let explainer = Explainer(names: names, stepOfEvent: stepOfEvent)
        failures.append(
            StepFailure(
                step: step,
                location: step.location,
                expected: expected,
                actual: actual,
                reasons: error.map { [explainer.describe($0.reason)] } ?? []
            )
        )
    }

    private mutating func check(_ expectation: Expectation, at step: Step) {
        let explainer = Explainer(names: names, stepOfEvent: stepOfEvent)
        for expected in expectation.sessions {
            guard let snapshot = engine.snapshot(of: names[expected.session]) else { continue }
            for mismatch in expected.mismatches(in: snapshot) {
                failures.append(
                    StepFailure(
                        step: step,
                        location: expected.location,
                        expected: "\(expected.session).\(mismatch.field): \(mismatch.expected)",
                        actual: "\(expected.session).\(mismatch.field): \(mismatch.actual)",
                        reasons: explainer.explain(snapshot)
                    )
                )
            }
        }
        if let expectedNotifications = expectation.notifications {
            let sent = unchecked.map { explainer.format($0) }
            if let problem = NotificationMatcher.mismatch(
                expected: expectedNotifications,
                sent: unchecked,
                names: names
            ) {
                failures.append(
                    StepFailure(
                        step: step,
                        location: step.location,
                        expected: "notifications: "
                            + expectedNotifications.map(NotificationMatcher.format).joined(separator: "; "),
                        actual: "notifications: " + (sent.isEmpty ? "none" : sent.joined(separator: "; "))
                            + " (\(problem))",
                        reasons: unchecked.map { explainer.format($0) + ": " + explainer.describe($0.reason) }
                    )
                )
            }
        }
        unchecked.removeAll()
    }
}

/// A notification the engine sent, kept until the next `expect`.
public struct SentNotification: Sendable {
    public var session: SessionID
    public var notification: SessionNotification
    public var reason: Reason

    public init(session: SessionID, notification: SessionNotification, reason: Reason) {
        self.session = session
        self.notification = notification
        self.reason = reason
    }
}

/// Scenario session names and the IDs the runner gives them: sessions are numbered in declaration order, and
/// each has one output and one input stream.
public struct SessionNames: Sendable {
    public let names: [String]
    private let ids: [String: SessionID]

    public init(_ names: [String]) {
        self.names = names
        self.ids = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, SessionID($0)) })
    }

    /// The loader has checked every name a step uses, so an unknown one cannot reach here; it maps to an ID no
    /// session has, which the engine answers with badParam.
    subscript(name: String) -> SessionID { ids[name] ?? SessionID(-1) }

    public func name(of id: SessionID) -> String {
        names.indices.contains(id.rawValue) ? names[id.rawValue] : "\(id)"
    }

    func stream(of name: String, _ direction: StreamDirection) -> StreamID {
        StreamID(self[name].rawValue * 2 + (direction == .output ? 0 : 1))
    }
}

/// Time as the scenario says it passes (`wait:`); the engine itself never sees a clock.
struct VirtualClock {
    var now = 0
    private var due: [(at: Int, timer: TimerID)] = []

    mutating func start(_ timer: TimerID, after milliseconds: Int) { due.append((now + milliseconds, timer)) }
    mutating func cancel(_ timer: TimerID) { due.removeAll { $0.timer == timer } }

    /// The earliest timer due by `end`, with the clock moved to when it falls due; nil when none is. A timer
    /// started by what a fired one set off is found too, if it falls due by `end`.
    mutating func popDue(upTo end: Int) -> TimerID? {
        guard
            let next = due.indices.filter({ due[$0].at <= end }).min(by: {
                (due[$0].at, due[$0].timer) < (due[$1].at, due[$1].timer)
            })
        else { return nil }
        let (at, timer) = due.remove(at: next)
        now = max(now, at)
        return timer
    }
}
