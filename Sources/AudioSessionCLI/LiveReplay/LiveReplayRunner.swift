import AudioSessionConfiguration
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario

/// Replays one scenario against the running daemon: sets the world up as `device:` says, plays each session
/// as a real app would, and checks each `expect` against what the daemon and the sound server report.
final class LiveScenarioRunner {
    let scenario: Scenario
    let world: LiveWorld
    let names: SessionNames
    let recordsTimeline: Bool
    let explains: Bool
    var sessions: [LiveSession] = []
    /// The port lists the daemon must have: `device:`, then each connect and disconnect.
    var ports = LivePorts.Lists()
    var failures: [StepFailure] = []
    /// Why the replay stopped at a step that cannot be done live; the scenario is then skipped.
    var skippedAt: String?
    var timeline: [TimelineRow] = []

    init(_ scenario: Scenario, world: LiveWorld, timeline: Bool, explain: Bool) {
        self.scenario = scenario
        self.world = world
        self.names = SessionNames(scenario.sessions.map(\.name))
        self.recordsTimeline = timeline || explain
        self.explains = explain
    }

    var server: LiveSoundServer { world.server }
    var options: LiveReplayOptions { world.options }

    func run() async -> LiveReplay.Outcome {
        defer { for session in sessions { session.close() } }
        do {
            try await resetWorld()
            try declareSessions()
        } catch let skip as LiveSkip {
            return .skipped(skip.description)
        } catch {
            failures.append(
                StepFailure(
                    step: nil,
                    location: SourceLocation(file: scenario.file, line: 1, column: 1),
                    expected: "the daemon and the sound server to be set up as the file says",
                    actual: "\(error)",
                    reasons: []
                )
            )
            return .replayed(result())
        }
        for step in scenario.steps {
            // A signal cancels the replay: what is left is not played, and the sessions end on the way out.
            guard !Task.isCancelled else {
                failures.append(
                    StepFailure(
                        step: step,
                        location: step.location,
                        expected: "the step to be carried out live",
                        actual: "the replay was interrupted before it",
                        reasons: []
                    )
                )
                break
            }
            await perform(step)
            if let skippedAt { return .skipped(skippedAt) }
        }
        return .replayed(result())
    }

    private func result() -> ScenarioResult {
        ScenarioResult(scenario: scenario, failures: failures, timeline: timeline, names: names)
    }

    func session(_ name: String) -> LiveSession {
        sessions.first { $0.name == name }!
    }

    // MARK: Steps

    private func perform(_ step: Step) async {
        for session in sessions { session.receivedThisStep = [] }
        var reply: ErrorBody?
        do {
            switch step.action {
            case .activate(let name):
                reply = try sessionRequest(name, Request(.activate))
            case .deactivate(let name, let notifyOthers):
                reply = try sessionRequest(name, Request(.deactivate(notifyOthers: notifyOthers)))
            case .setCategory(let name, let category, let mode, let options):
                reply = try sessionRequest(
                    name,
                    Request(.setCategory(category, mode: mode, options: options))
                )
            case .overrideOutput(let name, let override):
                reply = try sessionRequest(name, Request(.overrideOutput(port: override.rawValue)))
            case .play(let name):
                try await play(session(name))
                try checkStarted(session(name), at: step)
            case .record(let name):
                try await record(session(name))
                try checkStarted(session(name), at: step)
            case .pause(let name):
                try await pause(session(name))
            case .stopRecording(let name):
                try await stopRecording(session(name))
            case .silentSwitch(let position):
                reply = try controlRequest(Request(.setSilentSwitch(position)))
            case .screenLocked(let locked):
                reply = try controlRequest(Request(.setScreenLock(locked: locked)))
            case .background(let name):
                reply = try setAppState(session(name), .background)
            case .foreground(let name):
                reply = try setAppState(session(name), .foreground)
            case .connect(let port):
                try await connect(port)
            case .disconnect(let port):
                try await disconnect(port)
            case .selectOutput(let port):
                reply = try controlRequest(Request(.selectOutput(port: port.rawValue)))
            case .mediaServicesLost, .mediaServicesReset:
                throw CLIError("media services cannot be lost or reset live")
            case .wait(let milliseconds):
                try await Task.sleep(for: .milliseconds(milliseconds * options.timeScale))
            case .expect(let expectation):
                try await check(expectation, at: step)
            }
            if !step.action.checksItsOwnError { checkError(reply, at: step) }
            for session in sessions { try session.collect() }
            if recordsTimeline { try await recordRow(after: step, error: reply) }
        } catch let skip as LiveSkip {
            skippedAt = "line \(step.location.line): \(skip)"
        } catch {
            failures.append(
                StepFailure(
                    step: step,
                    location: step.location,
                    expected: "the step to be carried out live",
                    actual: "\(error)",
                    reasons: []
                )
            )
        }
    }

    /// A request on the session's own connection; its error, if any.
    private func sessionRequest(_ name: String, _ request: Request) throws -> ErrorBody? {
        guard let connection = session(name).connection else {
            throw CLIError("\(name) is an unaware app: it has no session of its own to ask")
        }
        return try connection.call(request).error
    }

    private func controlRequest(_ request: Request) throws -> ErrorBody? {
        try world.control.call(request).error
    }

    private func setAppState(_ session: LiveSession, _ state: AppState) throws -> ErrorBody? {
        guard let number = try number(of: session) else {
            throw CLIError(
                "\(session.name) is not known to the daemon yet: an unaware app appears with its first stream"
            )
        }
        return try controlRequest(
            Request(.setAppState(session: String(number), state: state))
        )
    }

    /// The step's error against `error:` in the file.
    private func checkError(_ error: ErrorBody?, at step: Step) {
        guard error?.code != step.expectedError?.rawValue else { return }
        failures.append(
            StepFailure(
                step: step,
                location: step.location,
                expected: step.expectedError.map { "the step to fail with \($0.rawValue)" } ?? "the step to succeed",
                actual: error.map { "it failed with \($0.code): \($0.message)" } ?? "it succeeded",
                reasons: []
            )
        )
    }

    /// D5: a stream that starts activates its session, or the step fails. The daemon tells no one why an
    /// implicit activation failed (only its log does), so live the code of `error:` is not compared: the step
    /// failed if the session did not become active.
    private func checkStarted(_ session: LiveSession, at step: Step) throws {
        let state = try sessionState(session)?.state
        let failed = state != .active
        guard failed != (step.expectedError != nil) else { return }
        failures.append(
            StepFailure(
                step: step,
                location: step.location,
                expected: step.expectedError.map { "the step to fail with \($0.rawValue)" } ?? "the step to succeed",
                actual: failed
                    ? "its stream runs but \(session.name) is \(state?.rawValue ?? "unknown to the daemon")"
                    : "it succeeded: \(session.name) is active",
                reasons: try explanation(of: session)
            )
        )
    }

    // MARK: Polling

    /// Checks `condition` every 20 ms until it holds (true) or `limit` has passed (false).
    func poll(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension StepAction {
    /// Steps whose failure is not a reply's error but a session that did not become active (D5).
    var checksItsOwnError: Bool {
        switch self {
        case .play, .record: true
        default: false
        }
    }
}
