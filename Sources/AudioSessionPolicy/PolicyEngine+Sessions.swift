extension PolicyEngine {
    /// C1 and U1: a new session, as declared or as the rules classify an unaware app.
    mutating func createSession(_ id: SessionID, _ declaration: SessionDeclaration) -> PolicyError? {
        guard sessions[id] == nil else {
            return PolicyError(.badParam, Reason(.C1, event: eventNumber, session: id), "session \(id) exists already")
        }
        var category = declaration.category
        var mode = declaration.mode
        var options = declaration.options
        var isCall = declaration.isCall
        var unaware: UnawareBehaviour?
        if let properties = declaration.unawareStreamProperties {
            let rule = config.rules.first { $0.matches(properties) }
            category = rule?.category ?? .soloAmbient
            mode = rule?.mode ?? .default
            options = rule?.options ?? []
            isCall = rule?.isCall ?? false
            unaware = UnawareBehaviour(
                endsWithNotifyOthers: rule?.endsWithNotifyOthers ?? false,
                player: declaration.isMediaPlayer ? PlayerRecord() : nil
            )
        }
        if let error = illegalCategory(category, mode: mode, options: options, session: id) { return error }
        let session = SessionRecord(
            id: id,
            appName: declaration.appName,
            category: category,
            mode: mode,
            options: options.reported(category: category, mode: mode),
            isCall: isCall,
            isCallExempt: declaration.callExemptByIdentity
                ?? isCallExempt(appName: declaration.appName, declaration.unawareStreamProperties),
            callExemptByIdentity: declaration.callExemptByIdentity,
            stateReason: Reason(unaware == nil ? .C1 : .U1, event: eventNumber),
            appState: declaration.appState,
            unaware: unaware,
            unawareProperties: declaration.unawareStreamProperties
        )
        sessions[id] = session
        return nil
    }

    /// A2: listed in `callExemptApps` by its name or, for an unaware app, its `application.name`.
    func isCallExempt(appName: String, _ properties: [String: String]?) -> Bool {
        [appName, properties?["application.name"]].contains { $0.map(config.callExemptApps.contains) == true }
    }

    /// A reload: the new configuration applies to what is there, nothing is dropped.
    mutating func reconfigure(_ newConfig: PolicyConfig) -> PolicyError? {
        config = newConfig
        for id in sessions.keys where sessions[id]!.callExemptByIdentity == nil {
            let exempt = isCallExempt(appName: sessions[id]!.appName, sessions[id]!.unawareProperties)
            modify(id) { $0.isCallExempt = exempt }
        }
        effects.routesMayHaveChanged = true
        return nil
    }

    /// The daemon's new word on who a client is exempt as (after a reload); names stop counting for it.
    mutating func decideCallExemption(_ id: SessionID, exempt: Bool) -> PolicyError? {
        guard sessions[id] != nil else { return unknownSession(id) }
        modify(id) {
            $0.callExemptByIdentity = exempt
            $0.isCallExempt = exempt
        }
        return nil
    }

    /// A client went away: it stops being active (interruptions it caused end without shouldResume, unless it
    /// had deactivated with notifyOthers already), and it and its streams are forgotten.
    mutating func removeSession(_ id: SessionID) -> PolicyError? {
        guard let session = sessions[id] else { return unknownSession(id) }
        if session.isActive {
            endInterruptions(causedBy: id, notifiedOthers: false)
        }
        leaveInterruption(of: id)
        if let timer = session.unaware?.graceTimer { cancelGraceTimer(timer) }
        dropDaemonPause(of: id)
        for stream in session.streams { streams[stream] = nil }
        overriddenSessions.remove(id)
        indexes.remove(id)
        sessions[id] = nil
        effects.touchedSessions.remove(id)
        return nil
    }

    /// C6-C7: a new category, mode and options; nothing changes when any of them is illegal.
    mutating func setCategory(
        _ id: SessionID,
        _ category: Category,
        mode: Mode,
        options explicitOptions: CategoryOptions
    ) -> PolicyError? {
        guard let old = sessions[id] else { return unknownSession(id) }
        if let error = illegalCategory(category, mode: mode, options: explicitOptions, session: id) { return error }
        let routeBefore = route(of: old)
        modify(id) { session in
            session.category = category
            session.mode = mode
            session.options = explicitOptions.reported(category: category, mode: mode)
            if category != .playAndRecord { session.speakerOverride = false }
        }
        if !sessions[id]!.speakerOverride { overriddenSessions.remove(id) }
        guard old.isActive else { return nil }
        let updated = sessions[id]!
        if category != old.category || route(of: updated) != routeBefore {
            notify(id, .routeChange(.categoryChange, previous: routeBefore), Reason(.C7, event: eventNumber))
        }
        if old.isMixable && !updated.isMixable {
            interruptOthers(for: id, rule: .C7)
        }
        return nil
    }

    /// C4-C6: the first thing wrong with a category, mode and options, as a badParam error.
    func illegalCategory(
        _ category: Category,
        mode: Mode,
        options: CategoryOptions,
        session id: SessionID
    ) -> PolicyError? {
        if !mode.isLegal(with: category) {
            return PolicyError(
                .badParam,
                Reason(.C5, event: eventNumber, session: id),
                "mode \(mode.rawValue) cannot be used with category \(category.rawValue)"
            )
        }
        if let option = options.firstIllegalOption(for: category) {
            return PolicyError(
                .badParam,
                Reason(.C4, event: eventNumber, session: id),
                "option \(option) cannot be used with category \(category.rawValue)"
            )
        }
        return nil
    }

    /// App state changes only what streams hear (O5) and whether A3 and A7 apply; it sends nothing.
    mutating func setAppState(_ id: SessionID, _ appState: AppState) -> PolicyError? {
        guard sessions[id] != nil else { return unknownSession(id) }
        modify(id) { $0.appState = appState }
        return nil
    }

    /// M1: everything goes silent and every session is told.
    mutating func loseMediaServices() -> PolicyError? {
        guard mediaServicesLoss == nil else { return nil }
        mediaServicesLoss = Reason(.M1, event: eventNumber)
        for id in sessions.keys {
            notify(id, .mediaServicesWereLost, Reason(.M1, event: eventNumber))
        }
        return nil
    }

    /// M1: the sound server is back. Every session is told and made inactive (no ended notifications), keeps
    /// its category, mode and options, loses its speaker override; every stream is gone.
    mutating func resetMediaServices() -> PolicyError? {
        mediaServicesLoss = nil
        let reason = Reason(.M1, event: eventNumber)
        for timer in graceTimers.keys.sorted() { cancelGraceTimer(timer) }
        // The players' streams are gone with the server: no pause is waited for, none will be undone.
        for timer in playerTimers.keys.sorted() { cancelPlayerTimer(timer) }
        streams.removeAll()
        overriddenSessions.removeAll()
        for id in sessions.keys {
            notify(id, .mediaServicesWereReset, reason)
            modify(id) { session in
                session.state = .inactive
                session.stateReason = reason
                session.interruption = nil
                session.interrupting = []
                session.speakerOverride = false
                session.streams = []
                session.unaware?.graceTimer = nil
                session.unaware?.player?.daemonPause = nil
            }
        }
        return nil
    }
}
