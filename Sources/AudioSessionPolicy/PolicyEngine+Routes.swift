extension PolicyEngine {
    /// R1 and R6: where a session's sound goes and comes from, and the rule that chose its output.
    func route(of session: SessionRecord) -> Route {
        Route(output: outputRoute(of: session)?.port, input: inputRoute(of: session))
    }

    /// R1, with the step that decided it.
    func outputRoute(of session: SessionRecord) -> (port: Port, reason: Reason)? {
        guard session.category.hasOutput else { return nil }
        if let selected = ports.selection, ports.outputs.contains(selected), allows(selected, session) {
            return (selected, Reason(.R3, port: selected))
        }
        if session.speakerOverride {
            return (.speaker, Reason(.R5, port: .speaker))
        }
        if let recent = ports.outputs.last(where: { $0 != .speaker && $0 != .receiver && allows($0, session) }) {
            return (recent, Reason(.R2, port: recent))
        }
        if session.category == .playAndRecord, !session.options.contains(.defaultToSpeaker),
            ports.outputs.contains(.receiver)
        {
            return (.receiver, Reason(.R1, port: .receiver))
        }
        return (.speaker, Reason(.R1, port: .speaker))
    }

    /// R6.
    func inputRoute(of session: SessionRecord) -> Port? {
        guard session.category.hasInput else { return nil }
        if session.options.contains(.allowBluetooth), ports.inputs.contains(.bluetoothHFP) {
            return .bluetoothHFP
        }
        return ports.inputs.last { [.headsetMic, .usbAudio, .lineIn].contains($0) } ?? .builtInMic
    }

    /// R1: whether a session's category and options allow an output port.
    private func allows(_ port: Port, _ session: SessionRecord) -> Bool {
        switch port {
        case .receiver: session.category == .playAndRecord
        case .bluetoothHFP: session.options.contains(.allowBluetooth)
        case .bluetoothA2DP:
            session.category.isOutputOnly
                || (session.category == .playAndRecord && session.options.contains(.allowBluetoothA2DP))
        default: port.isOutput
        }
    }

    // MARK: Port events

    /// R2.
    mutating func connect(_ port: Port) -> PolicyError? {
        changePorts(reason: .newDeviceAvailable, rule: .R2, port: port) { $0.connect(port) }
        return nil
    }

    /// R4: also stops the running output streams of `playback` sessions that were routed to the lost port, and
    /// has the players among them paused (P1).
    mutating func disconnect(_ port: Port) -> PolicyError? {
        guard ports.isAvailable(port) else { return nil }
        let stop = RouteLoss(event: eventNumber, port: port)
        notePlayersPortLost(port)
        for id in sessions.keys.sorted() {
            guard let session = sessions[id], session.category == .playback,
                outputRoute(of: session)?.port == port
            else { continue }
            var stopped = false
            for stream in session.streams where streams[stream]?.direction == .output {
                if streams[stream]?.isRunning == true {
                    streams[stream]!.stoppedByRouteLoss = stop
                    stopped = true
                }
            }
            if stopped {
                askPlayerToPause(id, cause: .routeLoss, reason: Reason(.P1, event: eventNumber, port: port))
            }
        }
        changePorts(reason: .oldDeviceUnavailable, rule: .R4, port: port) { $0.disconnect(port) }
        return nil
    }

    /// R3.
    mutating func selectOutput(_ port: Port) -> PolicyError? {
        guard ports.outputs.contains(port) else {
            let available = "available: " + ports.outputs.map(\.rawValue).joined(separator: ", ")
            // An input port can never be selected: say so, and which ports can be.
            let what =
                port.isOutput
                ? "\(port.rawValue) is not an available output"
                : "\(port.rawValue) is an input port, not an output (the outputs are "
                    + Port.allCases.filter(\.isOutput).map(\.rawValue).joined(separator: ", ") + ")"
            return PolicyError(.badParam, Reason(.R3, event: eventNumber, port: port), "\(what); \(available)")
        }
        changePorts(reason: .override, rule: .R3, port: port, clearsOverrides: false) { $0.selection = port }
        return nil
    }

    /// R5.
    mutating func overrideOutput(_ id: SessionID, _ override: SpeakerOverride) -> PolicyError? {
        guard let session = sessions[id] else { return unknownSession(id) }
        guard session.category == .playAndRecord else {
            return PolicyError(
                .badParam,
                Reason(.R5, event: eventNumber, session: id),
                "only a playAndRecord session can override its output; this one is \(session.category.rawValue)"
            )
        }
        let before = route(of: session)
        modify(id) { $0.speakerOverride = override == .speaker }
        if override == .speaker { overriddenSessions.insert(id) } else { overriddenSessions.remove(id) }
        if session.isActive, route(of: sessions[id]!) != before {
            notify(id, .routeChange(.override, previous: before), Reason(.R5, event: eventNumber, session: id))
        }
        return nil
    }

    /// Changes the ports, clears what the change clears (R2, R4, R5), and tells each active session whose route
    /// changed, with the event's own reason (R7).
    private mutating func changePorts(
        reason: RouteChangeReason,
        rule: Rule,
        port: Port,
        clearsOverrides: Bool = true,
        _ change: (inout PortState) -> Void
    ) {
        let routesBefore = indexes.active.map { ($0, route(of: sessions[$0]!)) }
        change(&ports)
        if reason == .newDeviceAvailable { ports.selection = nil }
        if clearsOverrides {
            for id in overriddenSessions { modify(id) { $0.speakerOverride = false } }
            overriddenSessions.removeAll()
        }
        effects.routesMayHaveChanged = true
        for (id, before) in routesBefore where route(of: sessions[id]!) != before {
            notify(id, .routeChange(reason, previous: before), Reason(rule, event: eventNumber, port: port))
        }
    }
}
