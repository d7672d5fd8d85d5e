import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario
import PulseBackend

/// The daemon and the sound server at one moment.
struct LiveView {
    var status: StatusBody
    var server: LiveSoundServer.Reading
}

/// What the daemon and the server say of the scenario's sessions.
extension LiveScenarioRunner {
    func observe() async throws -> LiveView {
        LiveView(status: try world.status(), server: try await server.read())
    }

    /// The daemon's number for a session: an aware one's from `hello`; an unaware one's from the session its
    /// streams belong to.
    func number(of session: LiveSession, in status: StatusBody? = nil) throws -> Int? {
        if let number = session.number, !session.isUnaware { return number }
        let origins = [
            session.outputIndex.map { LiveStreamOrigin.sinkInput($0) },
            session.input.map { LiveStreamOrigin.sourceOutput($0.sourceOutputIndex) },
        ]
        .compactMap { $0?.description }
        guard !origins.isEmpty else { return nil }
        let status = try status ?? world.status()
        session.number = status.streams.first { origins.contains($0.origin) }?.session ?? session.number
        return session.number
    }

    func sessionState(_ session: LiveSession, in status: StatusBody? = nil) throws -> SessionStateBody? {
        let status = try status ?? world.status()
        guard let number = try number(of: session, in: status) else { return nil }
        return status.sessions.first { $0.session == number }
    }

    /// What the server makes of a session's output stream: none when paused or never started, silent at volume
    /// 0 (the daemon's silence, a gain of 0 on the user's volume) or muted (the user's flag), ducked when below
    /// the user's volume, else audible.
    func serverOutput(of session: LiveSession, in reading: LiveSoundServer.Reading) -> OutputSummary {
        guard let stream = session.outputIndex, let info = reading.sinkInputs[stream], !info.corked else {
            return .none
        }
        if info.muted || info.volume.average == 0 { return .silent }
        if let user = session.userVolume {
            if info.volume.average < user.average { return .ducked }
            // The first reading may already have been on its way down: the user's volume is the highest seen.
            if info.volume.average > user.average { session.userVolume = info.volume }
        }
        return .audible
    }

    /// A player plays while its mpv's stream runs (not corked), as the engine has it; paused otherwise.
    func playerState(of session: LiveSession, in reading: LiveSoundServer.Reading) -> MediaPlayerState {
        guard let stream = session.playerStream, let info = reading.sinkInputs[stream], !info.corked else {
            return .paused
        }
        return .playing
    }

    func serverInput(of session: LiveSession, in reading: LiveSoundServer.Reading) -> InputSummary {
        guard let stream = session.input, let info = reading.sourceOutputs[stream.sourceOutputIndex], !info.corked
        else { return .none }
        return info.muted || info.volume.average == 0 ? .muted : .capturing
    }

    /// The session as the engine would describe it: state, category, routes and the rest from the daemon;
    /// what its streams hear from the sound server. Nil when the daemon does not know it.
    func snapshot(of session: LiveSession, in view: LiveView) throws -> SessionSnapshot? {
        guard let body = try sessionState(session, in: view.status) else { return nil }
        let unknown = Reason(.C1)
        return SessionSnapshot(
            id: session.id,
            appName: session.name,
            category: body.category,
            mode: body.mode,
            options: CategoryOptions(body.options.compactMap(CategoryOptions.init(name:))),
            isCall: body.call,
            isUnaware: body.unaware,
            state: body.state,
            stateReason: unknown,
            appState: body.appState,
            output: serverOutput(of: session, in: view.server),
            outputReason: nil,
            input: serverInput(of: session, in: view.server),
            route: Route(output: body.currentRoute.output, input: body.currentRoute.input),
            routeReason: nil,
            isOtherAudioPlaying: body.isOtherAudioPlaying,
            secondaryAudioShouldBeSilencedHint: body.secondaryAudioShouldBeSilencedHint,
            interruptedBy: [],
            mediaPlayer: session.isPlayer ? playerState(of: session, in: view.server) : nil
        )
    }

    /// Why a session is as it is: the daemon's own explanation, and what the server says of its streams.
    func explanation(of session: LiveSession, in view: LiveView? = nil) throws -> [String] {
        guard let number = try number(of: session, in: view?.status) else {
            return ["\(session.name) is not known to the daemon: an unaware app appears with its first stream"]
        }
        var lines = try world.control.call(Request(.explain(session: String(number)))).result?.explanation ?? []
        if let reading = view?.server {
            if let stream = session.outputIndex, let info = reading.sinkInputs[stream] {
                let sink = reading.sinkNames[info.sinkIndex] ?? "#\(info.sinkIndex)"
                lines.append(
                    "the server: sink-input \(info.index) on \(sink), volume \(info.volume) (user's \(session.userVolume?.description ?? "?")), \(info.muted ? "muted" : "unmuted"), \(info.corked ? "corked" : "running")"
                )
            }
            if let stream = session.input, let info = reading.sourceOutputs[stream.sourceOutputIndex] {
                let source = reading.sourceNames[info.sourceIndex] ?? "#\(info.sourceIndex)"
                lines.append(
                    "the server: source-output \(info.index) on \(source), \(info.muted ? "muted" : "unmuted"), \(info.corked ? "corked" : "running")"
                )
            }
        }
        return lines
    }
}
