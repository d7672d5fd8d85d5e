extension PolicyEngine {
    /// A1-A6: activation, explicit (A1), implicit on play (D5) or by the engine for an unaware app (U3). `rule`
    /// is the one recorded as the reason the session became active.
    mutating func activate(_ id: SessionID, rule: Rule) -> PolicyError? {
        guard let session = sessions[id] else { return unknownSession(id) }
        if session.isActive { return nil }
        if let loss = mediaServicesLoss {
            return PolicyError(.mediaServicesFailed, loss, "the sound server is gone; wait for mediaServicesWereReset")
        }
        if !session.isCall, let call = indexes.calls.firstOther(than: id),
            !session.isCallExempt
        {
            return PolicyError(
                .insufficientPriority,
                Reason(.A2, event: eventNumber, session: call),
                "a call is active; only calls and exempt apps may activate"
            )
        }
        if session.appState == .background, !session.isMixable,
            let other = indexes.nonmixable.firstOther(than: id)
        {
            return PolicyError(
                .cannotInterruptOthers,
                Reason(.A3, event: eventNumber, session: other),
                "a nonmixable session in the background cannot interrupt another app's"
            )
        }
        // D3: an interrupted session that is activated again is simply active; its old interruption is over.
        leaveInterruption(of: id)
        setState(id, .active, Reason(rule, event: eventNumber))
        interruptOthers(for: id, rule: nil)
        return nil
    }

    /// A4-A6 (and C7, when an active session becomes nonmixable): the sessions `id`'s activation interrupts.
    /// With `rule` given, only A4's victims are taken and the interruption is put down to that rule.
    mutating func interruptOthers(for id: SessionID, rule: Rule?) {
        guard let activator = sessions[id] else { return }
        let interruptsSpokenAudio = rule == nil && activator.options.contains(.interruptSpokenAudioAndMixWithOthers)
        let isCall = rule == nil && activator.isCall
        // Visit only the sessions a rule can touch: a mixable activator that is no call and spares spoken audio
        // interrupts no one, whatever the number of active sessions.
        let candidates: Set<SessionID>
        if isCall || interruptsSpokenAudio {
            candidates = indexes.active
        } else if !activator.isMixable {
            candidates = indexes.nonmixable
        } else {
            return
        }
        var victims: [(SessionID, Rule)] = []
        for other in candidates where other != id {
            guard let candidate = sessions[other] else { continue }
            if isCall {
                victims.append((other, .A6))
            } else if candidate.isCall {
                // Only a call interrupts a call: an app exempt from A2 plays alongside it.
                continue
            } else if !activator.isMixable && !candidate.isMixable {
                victims.append((other, rule ?? .A4))
            } else if interruptsSpokenAudio, candidate.mode == .spokenAudio {
                victims.append((other, .A5))
            }
        }
        for (victim, victimRule) in victims.sorted(by: { $0.0 < $1.0 }) {
            interrupt(victim, by: id, rule: victimRule)
        }
    }

    /// Interrupts one active session. D4: whatever it had interrupted now waits on its interrupter instead.
    mutating func interrupt(_ victim: SessionID, by cause: SessionID, rule: Rule) {
        let reason = Reason(rule, event: eventNumber, session: cause)
        let inherited = sessions[victim]?.interrupting ?? []
        modify(victim) { session in
            session.interruption = Interruption(causes: [cause])
            session.interrupting = []
        }
        setState(victim, .interrupted, reason)
        notify(victim, .interruptionBegan, reason)
        askPlayerToPause(victim, cause: .interruption, reason: Reason(.P1, event: eventNumber, session: cause))
        modify(cause) { $0.interrupting.append(victim) }
        let replacement = Reason(.D4, event: eventNumber, session: cause)
        for waiting in inherited where waiting != cause {
            modify(waiting) { session in
                guard var interruption = session.interruption else { return }
                interruption.causes.removeAll { $0 == victim }
                if !interruption.causes.contains(cause) { interruption.causes.append(cause) }
                session.interruption = interruption
                session.stateReason = replacement
            }
            modify(cause) { $0.interrupting.append(waiting) }
        }
    }

    /// D1-D3: deactivation, by the app (D1) or by the engine for an unaware app (U2).
    mutating func deactivate(_ id: SessionID, notifyOthers: Bool, rule: Rule) -> PolicyError? {
        guard let session = sessions[id] else { return unknownSession(id) }
        switch session.state {
        case .inactive:
            return nil
        case .interrupted:
            leaveInterruption(of: id)
        case .active:
            break
        }
        setState(id, .inactive, Reason(rule, event: eventNumber))
        if session.isActive {
            endInterruptions(causedBy: id, notifiedOthers: notifyOthers)
        }
        if session.streams.contains(where: { streams[$0]?.isRunning == true }) {
            return PolicyError(
                .isBusy,
                Reason(.D2, event: eventNumber, session: id),
                "deactivated, but a stream of it is still running"
            )
        }
        return nil
    }

    /// D3: `cause` is no longer active. Each interruption it held ends once no cause is left; an unaware
    /// app told to resume is activated again (U3), a player the daemon paused is played again (P3).
    mutating func endInterruptions(causedBy cause: SessionID, notifiedOthers: Bool) {
        guard let waiting = sessions[cause]?.interrupting, !waiting.isEmpty else { return }
        modify(cause) { $0.interrupting = [] }
        var resumed: [SessionID] = []
        var pausesToUndo: [SessionID: DaemonPause] = [:]
        for id in waiting.sorted() {
            guard var interruption = sessions[id]?.interruption else { continue }
            interruption.causes.removeAll { $0 == cause }
            interruption.everyCauseNotified = interruption.everyCauseNotified && notifiedOthers
            if !interruption.causes.isEmpty {
                modify(id) { $0.interruption = interruption }
                continue
            }
            let shouldResume = interruption.everyCauseNotified
            let reason = Reason(.D3, event: eventNumber, session: cause)
            modify(id) { $0.interruption = nil }
            setState(id, .inactive, reason)
            notify(id, .interruptionEnded(shouldResume: shouldResume), reason)
            if let pause = settleInterruptionPause(of: id, shouldResume: shouldResume) {
                resumed.append(id)
                pausesToUndo[id] = pause
            } else if shouldResume, sessions[id]?.unaware != nil, hasRunningStream(id) {
                resumed.append(id)
            }
        }
        for id in resumed {
            if let pause = pausesToUndo[id] {
                resumePlayer(id, undoing: pause, after: cause)
            } else {
                _ = activate(id, rule: .U3)
            }
        }
    }

    /// Takes an interrupted session out of its causes' lists; no ended notification follows (D1, D3).
    mutating func leaveInterruption(of id: SessionID) {
        guard let interruption = sessions[id]?.interruption else { return }
        for cause in interruption.causes {
            modify(cause) { $0.interrupting.removeAll { $0 == id } }
        }
        modify(id) { $0.interruption = nil }
    }

}
