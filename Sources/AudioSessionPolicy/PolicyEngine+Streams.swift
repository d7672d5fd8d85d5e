extension PolicyEngine {
    /// A stream starts or restarts: it runs, any R4 stop is over (O3), an unaware app's grace ends, and D5
    /// activates its session if needed. A failed activation leaves the stream running but silent.
    mutating func startStream(_ id: StreamID, session sessionID: SessionID, direction: StreamDirection) -> PolicyError?
    {
        guard let session = sessions[sessionID] else { return unknownSession(sessionID) }
        if let existing = streams[id] {
            guard existing.session == sessionID, existing.direction == direction else {
                return PolicyError(
                    .badParam,
                    Reason(.D5, event: eventNumber, session: sessionID),
                    "\(id) belongs to \(existing.session) as an \(existing.direction.rawValue) stream"
                )
            }
            streams[id]!.isRunning = true
            streams[id]!.stoppedByRouteLoss = nil
        } else {
            streams[id] = StreamRecord(session: sessionID, direction: direction, isRunning: true)
            modify(sessionID) { $0.streams.append(id) }
        }
        effects.touchedSessions.insert(sessionID)
        if direction == .output { playerStarted(sessionID) }
        if let timer = session.unaware?.graceTimer {
            cancelGraceTimer(timer)
        }
        guard session.state != .active else { return nil }
        return activate(sessionID, rule: .D5)
    }

    /// A stream pauses; it stays known, and no longer counts as running.
    mutating func pauseStream(_ id: StreamID) -> PolicyError? {
        guard let stream = streams[id] else { return unknownStream(id) }
        streams[id]!.isRunning = false
        effects.touchedSessions.insert(stream.session)
        if stream.direction == .output { playerStopped(stream.session) }
        startGraceIfIdle(stream.session)
        return nil
    }

    /// A stream is gone.
    mutating func removeStream(_ id: StreamID) -> PolicyError? {
        guard let stream = streams[id] else { return unknownStream(id) }
        streams[id] = nil
        modify(stream.session) { $0.streams.removeAll { $0 == id } }
        if stream.direction == .output { playerStopped(stream.session) }
        startGraceIfIdle(stream.session)
        return nil
    }

    func hasRunningOutput(_ id: SessionID) -> Bool {
        sessions[id]?.streams.contains { streams[$0]?.direction == .output && streams[$0]?.isRunning == true }
            ?? false
    }

    func hasRunningStream(_ id: SessionID) -> Bool {
        sessions[id]?.streams.contains { streams[$0]?.isRunning == true } ?? false
    }

    // MARK: Unaware apps' grace period (U2)

    /// An unaware app with nothing running keeps its session for `graceMs`, in case it plays on. A player the
    /// daemon paused for an interruption is not idle: it waits for the interruption's end (P2).
    mutating func startGraceIfIdle(_ id: SessionID) {
        guard let session = sessions[id], let unaware = session.unaware, unaware.graceTimer == nil,
            session.state != .inactive, !hasRunningStream(id), !isHeldByDaemonPause(id)
        else { return }
        let timer = newTimer()
        graceTimers[timer] = id
        modify(id) { $0.unaware?.graceTimer = timer }
        effects.timerActions.append(.startTimer(timer, milliseconds: config.graceMs))
    }

    mutating func cancelGraceTimer(_ timer: TimerID) {
        guard let id = graceTimers.removeValue(forKey: timer) else { return }
        modify(id) { $0.unaware?.graceTimer = nil }
        effects.timerActions.append(.cancelTimer(timer))
    }

    /// U2: the grace is over; a still-idle unaware app's session deactivates, with notifyOthers for transient
    /// roles. P6: a player's pause timed out. A timer the engine no longer knows (already cancelled) is ignored.
    mutating func fireTimer(_ timer: TimerID) -> PolicyError? {
        if let player = playerTimers.removeValue(forKey: timer) { return playerTimedOut(player) }
        guard let id = graceTimers.removeValue(forKey: timer) else { return nil }
        modify(id) { $0.unaware?.graceTimer = nil }
        guard let session = sessions[id], let unaware = session.unaware, !hasRunningStream(id) else { return nil }
        return deactivate(id, notifyOthers: unaware.endsWithNotifyOthers, rule: .U2)
    }

    func unknownStream(_ id: StreamID) -> PolicyError {
        PolicyError(.badParam, Reason(.D5, event: eventNumber), "there is no \(id)")
    }
}
