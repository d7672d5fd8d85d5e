import AudioSessionPolicy

/// POLICY section 6b in the daemon: unaware apps with an MPRIS player on the session bus are players the engine
/// may pause and play. The bus shell reports the players (`PlayerFact`); the core matches them to streams by
/// process and turns the engine's `pausePlayer`/`playPlayer` into commands to send (`DaemonEffect.callPlayer`).
extension DaemonCore {
    /// How long a player that answered a pause in time has to stop its stream before the engine's timer gives it
    /// up (P6). The answer itself must come within `playerTimeoutMs` (the command is sent with that timeout);
    /// the stream's stop then reaches the daemon through the sound server, which reports a pause only once it
    /// has settled (`StreamMachine.pauseSettling`), so it cannot be held to the same 250 ms.
    package static let pausedStreamAllowanceMs = 1000

    package mutating func handle(_ fact: PlayerFact) {
        switch fact {
        case .appeared(let busName, let processID):
            guard PlayerTable.isPlayerName(busName) else { return }
            players.add(busName, processID: processID)
            findSessionsOfLatePlayer(busName)
        case .vanished(let busName):
            guard let entry = players.remove(busName), let session = entry.session else { return }
            guard engine.isAnsweringPlayer(session) else { return }
            run(.playerLost(session))
            giveUp(session, "its player \(busName) left the bus")
        case .playbackStatus(let busName, let status):
            let before = players.entries[busName]?.status
            players.setStatus(status, of: busName)
            if let session = players.entries[busName]?.session, before != nil, before != status {
                effects.append(.log("\(name(of: session)): \(busName) says \(status.rawValue)"))
            }
        case .answered:
            break
        case .failed(let busName, let command, let reason):
            guard let session = players.entries[busName]?.session, engine.isAnsweringPlayer(session) else { return }
            if command == .pause, let timer = engine.pendingPauseTimeout(of: session) {
                // The engine's own timer would give it up later; an error or no answer gives it up now (P6).
                effects.append(.cancelTimer(timer))
                awaitedPauses[timer] = nil
                run(.timerFired(timer))
            } else {
                run(.playerLost(session))
            }
            giveUp(session, "\(busName) \(command == .pause ? "did not pause" : "did not play"): \(reason)")
        }
    }

    /// The engine asks for a pause or a play: sent to the session's player, with the player timeout.
    package mutating func drive(_ action: PolicyAction) {
        let session: SessionID
        let command: PlayerCommand
        let reason: Reason
        switch action {
        case .pausePlayer(let asked, let why): (session, command, reason) = (asked, .pause, why)
        case .playPlayer(let asked, let why): (session, command, reason) = (asked, .play, why)
        default: return
        }
        guard let busName = players.busName(of: session) else {
            // Not on the bus any more (the bus itself went away): a pause not sent is given up on by the engine's
            // timer (P6); a play not sent leaves the player paused and its idle session to the grace period.
            effects.append(.log("\(name(of: session)): \(command.rawValue) not sent, its player is not on the bus: \(explainer.describe(reason))"))
            return
        }
        if command == .pause, let timer = engine.pendingPauseTimeout(of: session) {
            awaitedPauses[timer] = busName
        }
        effects.append(.log("\(name(of: session)): \(command.rawValue) sent to \(busName): \(explainer.describe(reason))"))
        effects.append(.callPlayer(busName, command, timeoutMs: engine.config.playerTimeoutMs))
    }

    /// The engine's timer for a pause: the player answers within the timeout, and its stream then has
    /// `pausedStreamAllowanceMs` more to stop.
    package func playerTimerMilliseconds(_ timer: TimerID, asked milliseconds: Int) -> Int {
        awaitedPauses[timer] == nil ? milliseconds : milliseconds + Self.pausedStreamAllowanceMs
    }

    /// A timer fired: if it was a pause's and the player is given up on now, the log says why, once.
    package mutating func notePauseTimerFired(_ timer: TimerID) {
        guard let busName = awaitedPauses.removeValue(forKey: timer),
            let session = players.entries[busName]?.session, !engine.isAnsweringPlayer(session)
        else { return }
        giveUp(session, "\(busName) did not stop its stream within \(engine.config.playerTimeoutMs + Self.pausedStreamAllowanceMs) ms of the pause (is it that stream's player?)")
    }

    /// The player a new output stream's session is for, if its process (or an ancestor) has one on the bus.
    package func player(for stream: SoundStream) -> String? {
        guard stream.direction == .output else { return nil }
        return players.player(forProcessLine: Self.processLine(of: stream))
    }

    /// The stream's process and its ancestors, from the shell (`SoundStream.processLine`), else the process the
    /// stream names.
    package static func processLine(of stream: SoundStream) -> [Int32] {
        if !stream.processLine.isEmpty { return stream.processLine }
        return stream.properties["application.process.id"].flatMap(Int32.init).map { [$0] } ?? []
    }

    /// A player that registered after its stream was seen (mpv opens its audio and its MPRIS name at about the
    /// same time): the unaware app's session of that stream becomes a player from now on (POLICY-NOTES.md).
    private mutating func findSessionsOfLatePlayer(_ busName: String) {
        for (origin, stream) in soundStreams.sorted(by: { $0.key.description < $1.key.description }) {
            guard let streamID = streamIDs[origin], let session = engine.session(of: streamID),
                let key = unawareSessions.first(where: { $0.value == session })?.key,
                players.busName(of: session) == nil, player(for: stream) == busName
            else { continue }
            players.bind(busName, to: session)
            unawareSessions[key] = nil
            unawareSessions[key + "|" + busName] = session
            run(.playerFound(session))
            effects.append(.log("\(name(of: session)): a player, \(busName) (found after its stream)"))
        }
    }

    /// P6 in the log: one line per session, however it went wrong.
    private mutating func giveUp(_ session: SessionID, _ why: String) {
        guard !loggedBadPlayers.contains(session) else { return }
        loggedBadPlayers.insert(session)
        effects.append(.log("\(name(of: session)): \(why); muted as an unaware app from now on (P6)"))
    }

    /// An unaware app's session ended: its player, if any, is free for the next.
    package mutating func forgetPlayer(of session: SessionID) {
        players.unbind(session)
        loggedBadPlayers.remove(session)
    }
}
