import AudioSessionScenario
import DBusBackend
import PulseBackend

/// The steps of a player (`mediaPlayer: true`) live: its first `play:` starts a real mpv, and each later
/// `play:` or `pause:` is the MPRIS Play or Pause the user's media keys send, each done once the daemon has
/// seen the stream start or stop.
extension LiveScenarioRunner {
    /// mpv's start, the daemon finding it, and its answers: generous, since each waits on an event and only a
    /// failing one waits it out (a loaded machine has taken seconds to start mpv).
    static let playerLimit = Duration.seconds(20)

    func playPlayer(_ session: LiveSession) async throws {
        guard let player = session.player, let stream = session.playerStream else {
            try await startPlayer(session)
            return
        }
        if player.isStopped { throw stoppedPlayerSkip(session, pressing: "play") }
        // A press of Play on a player that plays changes nothing: as for any app, a restart the daemon can see is
        // a pause and a play (R4, D5).
        if try await server.connection.sinkInput(stream)?.corked == false {
            try await press("Pause", on: session)
        }
        // A press counts once the daemon has taken the stream as paused (its pause has settled): a Play before
        // that would not be the restart it is (R4, P4).
        try await waitForStream(.sinkInput(stream), running: false, within: Self.playerLimit)
        try await press("Play", on: session)
        try await waitForStream(.sinkInput(stream), running: true, within: Self.playerLimit)
    }

    func pausePlayer(_ session: LiveSession) async throws {
        guard let player = session.player, let stream = session.playerStream else { return }
        if player.isStopped { throw stoppedPlayerSkip(session, pressing: "pause") }
        // The daemon holds it paused when it is interrupted (P1, its Pause may still be on its way to mpv) or
        // when its stream is corked (P4, unplugged): the server alone can be read before the daemon's Pause lands.
        let interrupted = try sessionState(session)?.state == .interrupted
        guard !interrupted, try await server.connection.sinkInput(stream)?.corked == false else {
            // The engine takes this for the user's pause (the grace starts); mpv, already paused, changes
            // nothing the daemon could see (docs/POLICY-NOTES.md).
            throw LiveSkip(
                "pause: \(session.name) while the daemon holds it paused: a real player's pause then changes "
                    + "nothing the daemon can see"
            )
        }
        try await press("Pause", on: session)
        try await waitForStream(.sinkInput(stream), running: false, within: Self.playerLimit)
    }

    /// mpv started; returns once its stream runs and the daemon drives it as a player. With `answers: false` it
    /// is then stopped, so that it answers nothing.
    private func startPlayer(_ session: LiveSession) async throws {
        guard let bus = options.sessionBus else { throw Self.noBusSkip }
        let player = try LivePlayer(session.spec, pulseServer: options.pulseServer, sessionBus: bus)
        session.player = player
        let processID = String(player.processID)
        var found: PulseSinkInput?
        let appeared = try await poll(within: Self.playerLimit) {
            if player.hasExited { throw CLIError("mpv for \(session.name) (process \(processID)) exited at start") }
            found = try await self.server.connection.sinkInputs().first {
                $0.properties["application.process.id"] == processID
            }
            return found != nil
        }
        guard appeared, let found else {
            throw CLIError("mpv for \(session.name) (process \(processID)) made no stream within \(Self.playerLimit)")
        }
        session.playerStream = found.index
        session.userVolume = found.volume
        let origin = LiveStreamOrigin.sinkInput(found.index).description
        let driven = try await poll(within: Self.playerLimit) {
            let status = try self.world.status()
            guard let stream = status.streams.first(where: { $0.origin == origin }), stream.running,
                let name = status.sessions.first(where: { $0.session == stream.session })?.player
            else { return false }
            session.number = stream.session
            session.playerBusName = name
            return true
        }
        guard driven else {
            throw CLIError(
                "the daemon did not take \(session.name)'s mpv (process \(processID), sink-input \(found.index)) "
                    + "for a running player within \(Self.playerLimit): does it follow the session bus \(bus)?"
            )
        }
        if !session.spec.playerAnswers { player.stopAnswering() }
    }

    /// The media keys: `org.mpris.MediaPlayer2.Player.Play` or `.Pause` to the name the daemon drives.
    private func press(_ member: String, on session: LiveSession) async throws {
        guard let name = session.playerBusName else {
            throw CLIError("\(session.name) has no player on the bus to press \(member) on")
        }
        do {
            _ = try await world.playerBus().call(
                destination: name,
                path: "/org/mpris/MediaPlayer2",
                interface: "org.mpris.MediaPlayer2.Player",
                member: member,
                timeout: Self.playerLimit
            )
        } catch {
            throw CLIError("\(member) to \(name) (\(session.name)) failed: \(error)")
        }
    }

    /// A press on a player that does not answer (`answers: false`, a stopped mpv) would wait in the bus's
    /// queue and arrive with the daemon's own when it is continued: not the press the file means.
    private func stoppedPlayerSkip(_ session: LiveSession, pressing key: String) -> LiveSkip {
        LiveSkip(
            "\(key): \(session.name), a player that does not answer (answers: false): live it is a stopped mpv, "
                + "which takes the user's press no more than the daemon's"
        )
    }

    static let noBusSkip = LiveSkip(
        "players need the session bus the daemon follows: pass --session-bus ADDRESS or set DBUS_SESSION_BUS_ADDRESS"
    )
}
