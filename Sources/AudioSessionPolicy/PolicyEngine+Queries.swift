extension PolicyEngine {
    /// Every session's ID, in order.
    public var sessionIDs: [SessionID] { sessions.keys.sorted() }

    /// The session a stream belongs to; nil for an unknown stream.
    public func session(of stream: StreamID) -> SessionID? { streams[stream]?.session }

    /// Whether the engine knows this session.
    public func hasSession(_ id: SessionID) -> Bool { sessions[id] != nil }

    /// Whether a session is inactive and has no stream: nothing of it is heard or held. False for an unknown
    /// session.
    public func isIdle(_ id: SessionID) -> Bool {
        guard let session = sessions[id] else { return false }
        return session.state == .inactive && session.streams.isEmpty
    }

    /// The streams of a session, in order.
    public func streamIDs(of id: SessionID) -> [StreamID] { (sessions[id]?.streams ?? []).sorted() }

    /// What the verdict last sent for a stream in a `setStream` action asked for; nil for an unknown stream.
    public func sentEffect(of id: StreamID) -> StreamEffect? { streams[id]?.sent }

    /// The verdict the rules give a stream now; nil for an unknown stream. Equal in effect to `sentEffect`
    /// after every event (the property tests check this).
    public func verdict(of id: StreamID) -> StreamVerdict? { streams[id].map { verdict(for: $0) } }

    /// The Ring/Silent switch's position.
    public var silentSwitchPosition: SilentSwitch { silentSwitch }

    /// Whether the screen is locked.
    public var isScreenLocked: Bool { screenLocked }

    /// Whether a stream is running (started and not paused).
    public func isRunning(_ id: StreamID) -> Bool { streams[id]?.isRunning ?? false }

    /// The available output and input ports, in connection order, and the user's selection.
    public var availablePorts: (outputs: [Port], inputs: [Port], selection: Port?) {
        (ports.outputs, ports.inputs, ports.selection)
    }

    /// Everything about one session now; nil for an unknown session.
    public func snapshot(of id: SessionID) -> SessionSnapshot? {
        guard let session = sessions[id] else { return nil }
        let (output, outputReason) = outputSummary(of: session)
        let outputRoute = outputRoute(of: session)
        return SessionSnapshot(
            id: id,
            appName: session.appName,
            category: session.category,
            mode: session.mode,
            options: session.options,
            isCall: session.isCall,
            isUnaware: session.unaware != nil,
            state: session.state,
            stateReason: session.stateReason,
            appState: session.appState,
            output: output,
            outputReason: outputReason,
            input: inputSummary(of: session),
            route: route(of: session),
            routeReason: outputRoute?.reason,
            isOtherAudioPlaying: isOtherAudioPlaying(for: id),
            secondaryAudioShouldBeSilencedHint: secondaryAudioHint(session, sources: indexes.nonmixableWithOutput),
            interruptedBy: session.interruption?.causes ?? [],
            mediaPlayer: mediaPlayerState(of: session)
        )
    }

    /// Where a session stands (the event log's record of it), or nil if there is no such session.
    public func standing(of id: SessionID) -> SessionStanding? {
        guard let session = sessions[id] else { return nil }
        return SessionStanding(
            category: session.category,
            mode: session.mode,
            options: session.options,
            state: session.state,
            appState: session.appState,
            output: outputSummary(of: session).0,
            input: inputSummary(of: session),
            route: route(of: session)
        )
    }

    /// The loudest verdict among the running output streams (section 3), or none.
    private func outputSummary(of session: SessionRecord) -> (OutputSummary, Reason?) {
        var loudest: (summary: OutputSummary, reason: Reason)?
        for id in session.streams {
            guard let stream = streams[id], stream.direction == .output, stream.isRunning else { continue }
            let verdict = verdict(for: stream)
            let summary: OutputSummary =
                switch verdict.level {
                case .audible: .audible
                case .ducked: .ducked
                default: .silent
                }
            if loudest == nil || summary.loudness > loudest!.summary.loudness { loudest = (summary, verdict.reason) }
        }
        return (loudest?.summary ?? .none, loudest?.reason)
    }

    private func inputSummary(of session: SessionRecord) -> InputSummary {
        var summary = InputSummary.none
        for id in session.streams {
            guard let stream = streams[id], stream.direction == .input, stream.isRunning else { continue }
            if case .capturing = verdict(for: stream).level { return .capturing }
            summary = .muted
        }
        return summary
    }

    /// Section 3: another session has an output stream that is audible or ducked.
    private func isOtherAudioPlaying(for id: SessionID) -> Bool {
        indexes.active.contains { other in
            other != id
                && (sessions[other]?.streams ?? []).contains { streamID in
                    guard let stream = streams[streamID], stream.direction == .output, stream.isRunning else {
                        return false
                    }
                    switch verdict(for: stream).level {
                    case .audible, .ducked: return true
                    default: return false
                    }
                }
        }
    }
}

extension OutputSummary {
    fileprivate var loudness: Int {
        switch self {
        case .none: 0
        case .silent: 1
        case .ducked: 2
        case .audible: 3
        }
    }
}
