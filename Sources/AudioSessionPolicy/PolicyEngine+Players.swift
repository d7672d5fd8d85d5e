/// POLICY section 6b: players the daemon can pause. A player is an unaware app whose session was declared
/// `isMediaPlayer`. The engine asks for a pause or a play with an action; the player has obeyed when its output
/// stream stops running or runs again, which arrives as the usual stream events. Anything else the player's
/// stream does is the user acting on the player.
extension PolicyEngine {
    /// A player that still answers the daemon (not given up by P6).
    func answeringPlayer(_ id: SessionID) -> PlayerRecord? {
        guard let player = sessions[id]?.unaware?.player, player.answers else { return nil }
        return player
    }

    /// P1: the player's session became interrupted, or R4 stopped its stream: ask it to pause, with the player
    /// timeout (P6). Its stream is already silent (O2, O3). A pause for route loss outranks one for an
    /// interruption, since it is never undone (P4). M1: with the sound server gone there is nothing to pause.
    mutating func askPlayerToPause(_ id: SessionID, cause: DaemonPause.Cause, reason: Reason) {
        if cause == .interruption { keepPausedIfNotPlayedYet(id) }
        guard mediaServicesLoss == nil, let player = answeringPlayer(id), hasRunningOutput(id),
            let session = sessions[id]
        else { return }
        if player.daemonPause != nil {
            if cause == .routeLoss { modify(id) { $0.unaware?.player?.daemonPause?.cause = .routeLoss } }
            return
        }
        let timer = newTimer()
        playerTimers[timer] = id
        let pause = DaemonPause(cause: cause, port: outputRoute(of: session)?.port, timeout: timer)
        modify(id) { $0.unaware?.player?.daemonPause = pause }
        effects.playerActions.append(.pausePlayer(id, reason))
        effects.timerActions.append(.startTimer(timer, milliseconds: config.playerTimeoutMs))
    }

    /// R4 took `port` away: a `playback` player the daemon paused for an interruption while routed there stays
    /// paused when the interruption ends (P3: private audio never moves to the speaker).
    mutating func notePlayersPortLost(_ port: Port) {
        for (id, session) in sessions where session.category == .playback {
            guard let pause = session.unaware?.player?.daemonPause, pause.port == port, !pause.portLost else {
                continue
            }
            modify(id) { $0.unaware?.player?.daemonPause?.portLost = true }
        }
    }

    /// A player's output stream started: the player obeying the daemon's play, or the user pressing play
    /// (P2, P5). Either way no pause of the daemon's stands any more; the caller applies D5.
    mutating func playerStarted(_ id: SessionID) {
        guard sessions[id]?.unaware?.player?.daemonPause != nil else { return }
        dropDaemonPause(of: id)
    }

    /// A player's output stream paused or went away. While a pause of the daemon's is waited for, the player has
    /// obeyed once no output of it runs: a pause for an interruption then waits for its end without the grace
    /// timer (P2); one for route loss is the app's own from then on (P4: the caller starts the grace). Otherwise
    /// the user paused or stopped the player, and the daemon's pause is forgotten (P2, P3).
    mutating func playerStopped(_ id: SessionID) {
        guard let pause = sessions[id]?.unaware?.player?.daemonPause else { return }
        guard let timeout = pause.timeout else {
            dropDaemonPause(of: id)
            return
        }
        guard !hasRunningOutput(id) else { return }
        cancelPlayerTimer(timeout)
        if pause.cause == .routeLoss {
            modify(id) { $0.unaware?.player?.daemonPause = nil }
        }
    }

    /// P2: a player paused by the daemon for an interruption is not idle as section 6 means it.
    func isHeldByDaemonPause(_ id: SessionID) -> Bool {
        sessions[id]?.unaware?.player?.daemonPause?.cause == .interruption
    }

    /// P3: the interruption of a player the daemon paused for it ended. Returns the pause to undo when the daemon
    /// should activate the session and play the player; in every case the daemon's pause is settled.
    mutating func settleInterruptionPause(of id: SessionID, shouldResume: Bool) -> DaemonPause? {
        guard let pause = sessions[id]?.unaware?.player?.daemonPause, pause.cause == .interruption else {
            return nil
        }
        dropDaemonPause(of: id)
        return shouldResume && !pause.portLost ? pause : nil
    }

    /// P3: activate the session as U3 does and, if that succeeds, play the player (at the end of the event). A
    /// player that never plays leaves an idle session, which the grace period ends (section 6).
    mutating func resumePlayer(_ id: SessionID, undoing pause: DaemonPause, after cause: SessionID) {
        guard activate(id, rule: .P3) == nil else { return }
        var undone = pause
        undone.timeout = nil
        effects.playersToPlay[id] = (Reason(.P3, event: eventNumber, session: cause), undone)
        startGraceIfIdle(id)
    }

    /// A player played again by P3 that the same event interrupts again (another session resumed after it takes
    /// over) is not played: it stays paused by the daemon, now for the new interruption. If it had not obeyed the
    /// earlier pause yet (its stream still runs: the interruption ended within the player's answer), that pause
    /// is not taken back as obeyed: the caller asks for a new one with a timeout of its own (P1), so that the
    /// stream's stop is still the daemon's pause (P2) and not the user's (POLICY-NOTES.md).
    private mutating func keepPausedIfNotPlayedYet(_ id: SessionID) {
        guard let play = effects.playersToPlay.removeValue(forKey: id) else { return }
        if !hasRunningOutput(id) { modify(id) { $0.unaware?.player?.daemonPause = play.undoing } }
        if let grace = sessions[id]?.unaware?.graceTimer { cancelGraceTimer(grace) }
    }

    /// P6: the player did not pause in time. From now on it is an ordinary unaware app: its stream stays running,
    /// silent for as long as the rules say (O2, O3).
    mutating func playerTimedOut(_ id: SessionID) -> PolicyError? {
        modify(id) { session in
            session.unaware?.player?.answers = false
            session.unaware?.player?.daemonPause = nil
        }
        return nil
    }

    /// An unaware app's session found to be a player after it was made. It is not paused now, even if it is
    /// interrupted: its stream is already silent (O2), and P1 pauses a player when its session *becomes*
    /// interrupted; the next interruption or unplug pauses it.
    mutating func findPlayer(_ id: SessionID) -> PolicyError? {
        guard let session = sessions[id] else { return unknownSession(id) }
        guard session.unaware != nil else {
            return PolicyError(.badParam, Reason(.P1, event: eventNumber, session: id), "\(id) is not an unaware app's session")
        }
        guard session.unaware?.player == nil else { return nil }
        modify(id) { $0.unaware?.player = PlayerRecord() }
        return nil
    }

    /// P6: the player's interface is gone. A pause being waited for is given up; a player the daemon holds
    /// paused for an interruption is its own pause from now on (it will not be played), so the grace starts.
    mutating func losePlayer(_ id: SessionID) -> PolicyError? {
        guard sessions[id] != nil else { return unknownSession(id) }
        guard answeringPlayer(id) != nil else { return nil }
        dropDaemonPause(of: id)
        modify(id) { $0.unaware?.player?.answers = false }
        startGraceIfIdle(id)
        return nil
    }

    /// The timer of the pause the engine is waiting for from this player (P6), if any: the daemon ends it early
    /// when the player answers the pause with an error or not at all.
    public func pendingPauseTimeout(of id: SessionID) -> TimerID? {
        sessions[id]?.unaware?.player?.daemonPause?.timeout
    }

    /// Whether the session is a player the daemon still drives (not given up on by P6).
    public func isAnsweringPlayer(_ id: SessionID) -> Bool { answeringPlayer(id) != nil }

    /// Forgets the daemon's pause of a player, with its timeout if it was still waiting.
    mutating func dropDaemonPause(of id: SessionID) {
        if let timeout = sessions[id]?.unaware?.player?.daemonPause?.timeout { cancelPlayerTimer(timeout) }
        modify(id) { $0.unaware?.player?.daemonPause = nil }
    }

    mutating func cancelPlayerTimer(_ timer: TimerID) {
        guard let id = playerTimers.removeValue(forKey: timer) else { return }
        modify(id) { $0.unaware?.player?.daemonPause?.timeout = nil }
        effects.timerActions.append(.cancelTimer(timer))
    }

    /// What a player is doing, for `mediaPlayer:` expectations: playing while its output stream runs.
    func mediaPlayerState(of session: SessionRecord) -> MediaPlayerState? {
        guard session.unaware?.player != nil else { return nil }
        return hasRunningOutput(session.id) ? .playing : .paused
    }
}
