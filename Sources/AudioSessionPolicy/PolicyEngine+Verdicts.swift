extension PolicyEngine {
    /// POLICY section 3: what one stream hears, and why. Paused streams are judged too, so that a stream that
    /// resumes is already right; session summaries count only running ones.
    func verdict(for stream: StreamRecord) -> StreamVerdict {
        guard let session = sessions[stream.session] else {
            return StreamVerdict(level: .silent, port: nil, reason: Reason(.O2))
        }
        switch stream.direction {
        case .output:
            let port = outputRoute(of: session)?.port
            let (level, reason) = outputLevel(of: session, stream)
            return StreamVerdict(level: level, port: port, reason: reason)
        case .input:
            let port = inputRoute(of: session)
            if let loss = mediaServicesLoss { return StreamVerdict(level: .muted, port: port, reason: loss) }
            guard session.category.hasInput else {
                return StreamVerdict(level: .muted, port: port, reason: Reason(.O1, session: session.id))
            }
            guard session.isActive else { return StreamVerdict(level: .muted, port: port, reason: session.stateReason) }
            return StreamVerdict(level: .capturing, port: port, reason: Reason(.R6, port: port))
        }
    }

    /// O1-O8, the first that matches; M1 before them all.
    private func outputLevel(of session: SessionRecord, _ stream: StreamRecord) -> (StreamVerdict.Level, Reason) {
        let id = session.id
        if let loss = mediaServicesLoss { return (.silent, loss) }
        if !session.category.hasOutput { return (.silent, Reason(.O1, session: id)) }
        // O2 names what made the session inactive or interrupted: "interrupted by phone (A6) at step 4".
        if !session.isActive { return (.silent, session.stateReason) }
        if let stop = stream.stoppedByRouteLoss { return (.silent, stop.reason) }
        if silentSwitch == .silent, session.category.isSilencedBySwitchAndLock { return (.silent, silentSwitchReason) }
        if session.category.isSilencedBySwitchAndLock {
            if screenLocked { return (.silent, screenLockReason) }
            if session.appState == .background { return (.silent, Reason(.O5, session: id)) }
        }
        if !session.isCall, let recorder = indexes.recorders.firstOther(than: id) {
            return (.silent, Reason(.O6, session: recorder))
        }
        if let ducker = indexes.duckers.firstOther(than: id) {
            return (.ducked(gain: config.duckLevel, fadeMilliseconds: config.duckFadeMs), Reason(.O7, session: ducker))
        }
        return (.audible, Reason(.O8))
    }

    /// The event's actions: ordered notifications, then the verdicts that changed, then player commands (after
    /// the verdicts: a stream is muted before its player is asked to pause, P1), then timers.
    mutating func collectActions(audibilityChanged: Bool) -> [PolicyAction] {
        var actions: [PolicyAction] = []
        if !effects.notifications.isEmpty {
            effects.notifications.sort {
                ($0.session, $0.r7Rank, $0.sequence) < ($1.session, $1.r7Rank, $1.sequence)
            }
            actions.reserveCapacity(effects.notifications.count)
            for pending in effects.notifications {
                actions.append(.notify(pending.session, pending.notification, pending.reason))
            }
        }
        var verdictChanges: [(StreamID, StreamVerdict)] = []
        if effects.routesMayHaveChanged {
            for id in streams.keys { judge(id, into: &verdictChanges) }
        } else {
            if audibilityChanged {
                effects.touchedSessions.formUnion(indexes.active)
            }
            for session in effects.touchedSessions {
                for id in sessions[session]?.streams ?? [] { judge(id, into: &verdictChanges) }
            }
        }
        if !verdictChanges.isEmpty {
            verdictChanges.sort { $0.0 < $1.0 }
            for (id, verdict) in verdictChanges { actions.append(.setStream(id, verdict)) }
        }
        actions.append(contentsOf: effects.playerActions)
        for (id, play) in effects.playersToPlay.sorted(by: { $0.key < $1.key }) where sessions[id]?.isActive == true {
            actions.append(.playPlayer(id, play.reason))
        }
        actions.append(contentsOf: effects.timerActions)
        return actions
    }

    private mutating func judge(_ id: StreamID, into changes: inout [(StreamID, StreamVerdict)]) {
        guard let stream = streams[id] else { return }
        let verdict = verdict(for: stream)
        if stream.sent != verdict.effect {
            changes.append((id, verdict))
            streams[id]!.sent = verdict.effect
        }
    }

    // MARK: A7

    /// The secondary-audio hint of a session: mixable, while another app's nonmixable session with output is
    /// active.
    func secondaryAudioHint(_ session: SessionRecord, sources: Set<SessionID>) -> Bool {
        session.isMixable && sources.containsOther(than: session.id)
    }

    /// A7: each session active, mixable and in the foreground after the event is told when its hint flipped.
    mutating func sendHintChanges(hintSourcesBefore: Set<SessionID>) {
        let sourcesAfter = indexes.nonmixableWithOutput
        guard sourcesAfter != hintSourcesBefore else { return }
        for id in indexes.active {
            guard let session = sessions[id], session.isMixable, session.appState == .foreground else { continue }
            let before = hintSourcesBefore.containsOther(than: id)
            let after = sourcesAfter.containsOther(than: id)
            guard before != after else { continue }
            let source = (after ? sourcesAfter : hintSourcesBefore).firstOther(than: id)
            notify(id, .silenceSecondaryAudioHint(begins: after), Reason(.A7, event: eventNumber, session: source))
        }
    }
}
