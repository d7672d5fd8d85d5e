import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario

/// One field of an `expect` that does not hold live.
struct LiveMismatch {
    var field: String
    var expected: String
    var actual: String
}

/// `expect:` live: each listed field as the daemon and the server report it, waited for a while; notifications
/// as the sessions' connections received them.
extension LiveScenarioRunner {
    func check(_ expectation: Expectation, at step: Step) async throws {
        let deadline = ContinuousClock.now + options.expectTimeout
        var view = try await observe()
        var found = try mismatches(expectation, in: view)
        while !found.allSatisfy(\.mismatches.isEmpty) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            view = try await observe()
            found = try mismatches(expectation, in: view)
        }
        for (expected, list) in found where !list.isEmpty {
            let reasons = try explanation(of: session(expected.session), in: view)
            for mismatch in list {
                failures.append(
                    StepFailure(
                        step: step,
                        location: expected.location,
                        expected: "\(expected.session).\(mismatch.field): \(mismatch.expected)",
                        actual: "\(expected.session).\(mismatch.field): \(mismatch.actual)",
                        reasons: reasons
                    )
                )
            }
        }
        if let expected = expectation.notifications {
            try await checkNotifications(expected, at: step)
        } else {
            for session in sessions { try session.collect() }
        }
        for session in sessions { session.received.removeAll() }
    }

    /// Each listed session's fields that do not hold now.
    private func mismatches(
        _ expectation: Expectation,
        in view: LiveView
    ) throws -> [(expected: SessionExpectation, mismatches: [LiveMismatch])] {
        try expectation.sessions.map { expected in
            let session = session(expected.session)
            guard let snapshot = try snapshot(of: session, in: view),
                let body = try sessionState(session, in: view.status)
            else { return (expected, unseenMismatches(expected)) }
            var list = expected.mismatches(in: snapshot).map {
                LiveMismatch(field: $0.field, expected: $0.expected, actual: $0.actual)
            }
            for index in list.indices {
                if list[index].field == "output", body.output != snapshot.output {
                    list[index].actual += " (the daemon says \(body.output.rawValue))"
                }
                if list[index].field == "input", body.input != snapshot.input {
                    list[index].actual += " (the daemon says \(body.input.rawValue))"
                }
            }
            return (expected, list + deviceMismatches(expected, session, in: view))
        }
    }

    /// `route` and `inputRoute` also hold for the devices the session's running streams are on.
    private func deviceMismatches(
        _ expected: SessionExpectation,
        _ session: LiveSession,
        in view: LiveView
    ) -> [LiveMismatch] {
        var found: [LiveMismatch] = []
        if case .some(.some(let port)) = expected.route, let stream = session.outputIndex,
            let info = view.server.sinkInputs[stream], !info.corked
        {
            let name = view.server.sinkNames[info.sinkIndex] ?? "#\(info.sinkIndex)"
            if LiveSoundServer.port(ofDeviceNamed: name, isSink: true) != port {
                found.append(
                    LiveMismatch(field: "route", expected: port.rawValue, actual: "its stream plays on sink \(name)")
                )
            }
        }
        if case .some(.some(let port)) = expected.inputRoute, let stream = session.input,
            let info = view.server.sourceOutputs[stream.sourceOutputIndex], !info.corked
        {
            let name = view.server.sourceNames[info.sourceIndex] ?? "#\(info.sourceIndex)"
            if LiveSoundServer.port(ofDeviceNamed: name, isSink: false) != port {
                found.append(
                    LiveMismatch(
                        field: "inputRoute",
                        expected: port.rawValue,
                        actual: "its stream records from source \(name)"
                    )
                )
            }
        }
        return found
    }

    /// A session the daemon does not know is inactive with nothing running; nothing else can be read of it.
    private func unseenMismatches(_ expected: SessionExpectation) -> [LiveMismatch] {
        var found: [LiveMismatch] = []
        if let state = expected.state, state != .inactive {
            found.append(
                LiveMismatch(field: "state", expected: state.rawValue, actual: "inactive (not known to the daemon)")
            )
        }
        if let output = expected.output, output != .none {
            found.append(LiveMismatch(field: "output", expected: output.rawValue, actual: "none"))
        }
        if let input = expected.input, input != .none {
            found.append(LiveMismatch(field: "input", expected: input.rawValue, actual: "none"))
        }
        if expected.mediaPlayer == .playing {
            found.append(LiveMismatch(field: "mediaPlayer", expected: "playing", actual: "paused (no stream yet)"))
        }
        let unreadable: [(String, Bool)] = [
            ("route", expected.route != nil), ("inputRoute", expected.inputRoute != nil),
            ("category", expected.category != nil), ("mode", expected.mode != nil),
            ("options", expected.options != nil), ("otherAudioPlaying", expected.otherAudioPlaying != nil),
            ("secondaryAudioHint", expected.secondaryAudioHint != nil),
        ]
        for (field, listed) in unreadable where listed {
            found.append(
                LiveMismatch(
                    field: field,
                    expected: "as listed",
                    actual: "unknown: the daemon has not seen a stream of this unaware app yet"
                )
            )
        }
        return found
    }

    // MARK: Notifications

    /// The notifications since the previous `expect` against the listed ones (NotificationMatcher's rules), once
    /// they match and no more came for a moment, or `notificationWait` passed. Unaware apps have no connection
    /// to be told on: what the file expects for them is not checked live.
    private func checkNotifications(_ listed: [ExpectedNotification], at step: Step) async throws {
        let expected = listed.filter { !session($0.session).isUnaware }
        let deadline = ContinuousClock.now + options.notificationWait
        var count = -1
        var quietSince = ContinuousClock.now
        var problem: String?
        while true {
            for session in sessions { try session.collect() }
            let sent = sentNotifications()
            if sent.count != count {
                count = sent.count
                quietSince = .now
            }
            problem = NotificationMatcher.mismatch(expected: expected, sent: sent, names: names)
            if problem == nil && ContinuousClock.now - quietSince >= options.notificationQuiet { break }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard let problem else { return }
        let texts = sessions.flatMap { session in session.received.compactMap { notificationText($0, of: session) } }
        let wanted = expected.isEmpty ? "none" : expected.map(NotificationMatcher.format).joined(separator: "; ")
        let got = texts.isEmpty ? "none" : texts.map(\.text).joined(separator: "; ")
        failures.append(
            StepFailure(
                step: step,
                location: step.location,
                expected: "notifications: \(wanted)",
                actual: "notifications: \(got) (\(problem))",
                reasons: texts.map { "\($0.text): \($0.because)" }
            )
        )
    }

    private func sentNotifications() -> [SentNotification] {
        sessions.flatMap { session in
            session.received.compactMap { event in
                event.notification.map { SentNotification(session: session.id, notification: $0, reason: Reason(.C1)) }
            }
        }
    }

    /// A received notification in the scenario file's words, and the daemon's reason for it.
    func notificationText(_ event: Event, of session: LiveSession) -> (text: String, because: String)? {
        guard let notification = event.notification else { return nil }
        return ("\(session.name) \(Explainer.text(of: notification))", event.because ?? "")
    }
}
