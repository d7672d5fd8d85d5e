import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario

/// The `--timeline` rows of a live replay: the sessions after each step, as the daemon and the server have
/// settled them.
extension LiveScenarioRunner {
    /// The sessions after a step, once the server does what the daemon decided (or half a second passed).
    func recordRow(after step: Step, error: ErrorBody?) async throws {
        var view = try await observe()
        let deadline = ContinuousClock.now + .milliseconds(500)
        while try !settled(view) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            view = try await observe()
        }
        var snapshots: [SessionSnapshot] = []
        var explanations: [SessionID: [String]] = [:]
        for session in sessions {
            snapshots.append(try snapshot(of: session, in: view) ?? unseenSnapshot(of: session))
            if explains { explanations[session.id] = try explanation(of: session, in: view) }
        }
        let notifications = sessions.flatMap { session in
            session.receivedThisStep.compactMap { notificationText($0, of: session) }.map {
                "\($0.text): \($0.because)"
            }
        }
        let policyError = error.flatMap { body in
            PolicyErrorCode(rawValue: body.code).map { PolicyError($0, Reason(body.rule ?? .C1), body.message) }
        }
        timeline.append(
            TimelineRow(
                step: step,
                sessions: snapshots,
                error: policyError,
                notifications: notifications,
                explanations: explanations
            )
        )
    }

    /// Whether what the server does for each session is what the daemon says it should be.
    private func settled(_ view: LiveView) throws -> Bool {
        try sessions.allSatisfy { session in
            guard let body = try sessionState(session, in: view.status) else { return true }
            return serverOutput(of: session, in: view.server) == body.output
                && serverInput(of: session, in: view.server) == body.input
        }
    }

    /// A session the daemon has not seen (an unaware app before its first stream), as the timeline shows it.
    func unseenSnapshot(of session: LiveSession) -> SessionSnapshot {
        let declaration = session.spec.declaration
        return SessionSnapshot(
            id: session.id,
            appName: session.name,
            category: declaration.category,
            mode: declaration.mode,
            options: declaration.options,
            isCall: declaration.isCall,
            isUnaware: session.isUnaware,
            state: .inactive,
            stateReason: Reason(.C1),
            appState: declaration.appState,
            output: .none,
            outputReason: nil,
            input: .none,
            route: Route(output: nil, input: nil),
            routeReason: nil,
            isOtherAudioPlaying: false,
            secondaryAudioShouldBeSilencedHint: false,
            interruptedBy: []
        )
    }
}
