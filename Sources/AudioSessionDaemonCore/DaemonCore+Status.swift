import AudioSessionPolicy
import AudioSessionProtocol

extension DaemonCore {
    /// A session as clients see it.
    package func state(of session: SessionID) -> SessionStateBody? {
        guard let snapshot = engine.snapshot(of: session) else { return nil }
        return SessionStateBody(
            session: session.rawValue,
            app: name(of: session),
            category: snapshot.category,
            mode: snapshot.mode,
            options: snapshot.options.names,
            call: snapshot.isCall,
            unaware: snapshot.isUnaware,
            state: snapshot.state,
            appState: snapshot.appState,
            output: snapshot.output,
            input: snapshot.input,
            currentRoute: RouteBody(output: snapshot.route.output, input: snapshot.route.input),
            isOtherAudioPlaying: snapshot.isOtherAudioPlaying,
            secondaryAudioShouldBeSilencedHint: snapshot.secondaryAudioShouldBeSilencedHint,
            because: explainer.describe(snapshot.stateReason),
            player: players.busName(of: session)
        )
    }

    /// The whole daemon: switch, lock, ports, sessions, streams.
    package func status() -> StatusBody {
        let ports = engine.availablePorts
        let sessions = engine.sessionIDs
        var streams: [StreamBody] = []
        for session in sessions {
            for stream in engine.streamIDs(of: session) {
                guard let verdict = engine.verdict(of: stream) else { continue }
                var gain: Double?
                if case .ducked(let level, _) = verdict.level { gain = level }
                streams.append(
                    StreamBody(
                        stream: stream.rawValue,
                        session: session.rawValue,
                        direction: verdict.level.isInput ? .input : .output,
                        running: engine.isRunning(stream),
                        verdict: Self.word(for: verdict.level),
                        gain: gain,
                        port: verdict.port,
                        because: because(stream, verdict),
                        origin: origins[stream]?.description ?? "-"
                    )
                )
            }
        }
        return StatusBody(
            silentSwitch: engine.silentSwitchPosition,
            screenLocked: engine.isScreenLocked,
            mediaServicesAvailable: !soundServerLost,
            outputs: ports.outputs,
            inputs: ports.inputs,
            selectedOutput: ports.selection,
            sessions: sessions.compactMap { state(of: $0) },
            streams: streams,
            volume: mixer?.volume,
            mixerMuted: mixer?.heldMuted
        )
    }

    /// Each stream of a session, in words, for `explain`.
    package func streamExplanations(of session: SessionID) -> [String] {
        engine.streamIDs(of: session).compactMap { stream in
            guard let verdict = engine.verdict(of: stream) else { return nil }
            let origin = origins[stream]?.description ?? "\(stream)"
            let running = engine.isRunning(stream) ? "" : " (paused)"
            return "\(origin)\(running) is \(Self.word(for: verdict.level)) on \(verdict.port?.rawValue ?? "-"): \(explainer.describe(verdict.reason))"
        }
    }

    /// Watchers (`audiosessionctl watch`) get the whole status after every input.
    package mutating func publishStatusToWatchers() {
        let watchers = clients.filter(\.value.isWatching).keys.sorted()
        guard !watchers.isEmpty else {
            lastPublishedStatus = nil
            return
        }
        let status = status()
        guard status != lastPublishedStatus else { return }
        lastPublishedStatus = status
        for client in watchers { send(client, .event(Event(.status, status: status))) }
    }

    package static func word(for level: StreamVerdict.Level) -> String {
        switch level {
        case .audible: "audible"
        case .ducked: "ducked"
        case .silent: "silent"
        case .capturing: "capturing"
        case .muted: "muted"
        }
    }

    /// Why a stream sounds as it does; for one a port going away stopped (R4), also what brings it back.
    package func because(_ stream: StreamID, _ verdict: StreamVerdict) -> String {
        let why = explainer.describe(verdict.reason)
        guard engine.isRunning(stream), verdict.level == .silent, verdict.reason.rule == .R4 else { return why }
        return why + "; it plays again when its app restarts it (pause, play), or on `audiosessionctl resume \(stream.rawValue)`"
    }

    package static func streamVerdictEvent(_ number: Int, _ verdict: StreamVerdict) -> Event {
        var event = Event(.streamVerdict)
        event.stream = number
        event.verdict = word(for: verdict.level)
        if case .ducked(let gain, let fade) = verdict.level {
            event.gain = gain
            event.fadeMilliseconds = fade
        }
        event.currentRoute = RouteBody(output: verdict.level.isInput ? nil : verdict.port, input: verdict.level.isInput ? verdict.port : nil)
        return event
    }

    package static func event(for notification: SessionNotification, of session: SessionID, engine: PolicyEngine, because: String) -> Event {
        switch notification {
        case .interruptionBegan:
            return Event(.interruption, type: "began", because: because)
        case .interruptionEnded(let shouldResume):
            return Event(.interruption, type: "ended", shouldResume: shouldResume, because: because)
        case .routeChange(let reason, let previous):
            let current = engine.snapshot(of: session)?.route
            return Event(
                .routeChange,
                reason: reason,
                previousRoute: RouteBody(output: previous.output, input: previous.input),
                currentRoute: current.map { RouteBody(output: $0.output, input: $0.input) },
                because: because
            )
        case .silenceSecondaryAudioHint(let begins):
            return Event(.silenceSecondaryAudioHint, type: begins ? "begin" : "end", because: because)
        case .mediaServicesWereLost:
            return Event(.mediaServicesWereLost, because: because)
        case .mediaServicesWereReset:
            return Event(.mediaServicesWereReset, because: because)
        }
    }
}

extension StreamVerdict.Level {
    package var isInput: Bool {
        switch self {
        case .capturing, .muted: true
        default: false
        }
    }
}
