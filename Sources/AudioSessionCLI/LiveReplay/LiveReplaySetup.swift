import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario

/// Setting the world up as `device:` says, and the port steps.
extension LiveScenarioRunner {
    /// No other sessions, the switch and lock as `device:` says, and exactly its ports, in its order.
    func resetWorld() async throws {
        let gone = try await poll(within: .seconds(3)) { try self.world.status().sessions.isEmpty }
        if !gone {
            let apps = try world.status().sessions.map(\.app).joined(separator: ", ")
            throw LiveSkip("the daemon has sessions of other apps (\(apps)), which would change what the scenario sees")
        }
        let device = scenario.device
        _ = try world.control.result(Request(.setSilentSwitch(device.silentSwitch)))
        _ = try world.control.result(Request(.setScreenLock(locked: device.screenLocked)))
        let wanted = LivePorts.Lists(outputs: device.outputs, inputs: device.inputs)
        let status = try world.status()
        let devices = try await server.portDevices()
        func names(sinks: Bool) -> [String] { devices.filter { $0.device.isSink == sinks }.map(\.name).sorted() }
        let asWanted =
            status.outputs == wanted.outputs && status.inputs == wanted.inputs && status.selectedOutput == nil
            && names(sinks: true)
                == wanted.outputs.map { LiveSoundServer.name(of: .init(port: $0, isSink: true)) }.sorted()
            && names(sinks: false)
                == wanted.inputs.map { LiveSoundServer.name(of: .init(port: $0, isSink: false)) }.sorted()
        if !asWanted {
            guard let order = LivePorts.plugOrder(for: wanted) else { throw LiveSkip("no real devices make \(wanted)") }
            try await server.replug(order)
        }
        ports = wanted
        // A pick left over is cleared, also one that comes late (WirePlumber moves the default sink a moment
        // after it is asked to, which the daemon takes for a pick).
        let ready = try await poll(within: .seconds(3)) {
            let status = try self.world.status()
            guard status.outputs == self.ports.outputs, status.inputs == self.ports.inputs else { return false }
            if status.selectedOutput == nil { return true }
            try self.clearSelection()
            return false
        }
        if !ready {
            let status = try world.status()
            let lists = LivePorts.Lists(outputs: status.outputs, inputs: status.inputs)
            let selection = status.selectedOutput.map { ", \($0.rawValue) selected" } ?? ""
            throw LiveSkip(
                "the daemon has \(lists)\(selection) after the replay plugged in \(wanted): "
                    + "the server has devices the replay cannot remove"
            )
        }
    }

    /// A pick of an output left over (a previous scenario's, or the default sink's moves while devices came and
    /// went) is cleared as a connection clears it (R2): the daemon is told that a port that is already the most
    /// recent one in each of its lists connected, which changes no order.
    func clearSelection() throws {
        let candidates = [ports.outputs.last, ports.inputs.last].compactMap { $0 }
        guard
            let port = candidates.first(where: { port in
                var lists = ports
                lists.connect(port)
                return lists == ports
            })
        else { return }
        _ = try world.control.result(Request(.connectPort(port: port.rawValue)))
    }

    /// Each session as declared: aware ones say hello with their category; unaware ones appear with their
    /// first stream.
    func declareSessions() throws {
        if scenario.sessions.contains(where: \.isMediaPlayer) {
            if options.sessionBus == nil { throw Self.noBusSkip }
            if let missing = LivePlayer.missingParts() { throw LiveSkip(missing) }
        }
        for (index, spec) in scenario.sessions.enumerated() {
            let session = try LiveSession(spec: spec, index: index, socket: options.socket)
            sessions.append(session)
            try session.declare()
            if !spec.isUnaware, spec.declaration.appState == .background, let number = session.number {
                _ = try world.control.result(
                    Request(.setAppState(session: String(number), state: .background))
                )
            }
        }
    }

    // MARK: Ports

    func connect(_ port: Port) async throws {
        for (position, device) in LivePorts.devices(connecting: port).enumerated() {
            let present = try await server.portDevices().contains { $0.device == device }
            if position == 0 || !present { try await server.plug(device) }
        }
        try await server.pinDefault()
        ports.connect(port)
        if try await !waitForPorts() { throw try portsMismatch(after: "connect: \(port.rawValue)") }
    }

    func disconnect(_ port: Port) async throws {
        guard ports.outputs.contains(port) || ports.inputs.contains(port) else { return }
        if port.isOutput { try await server.unplug(port, isSink: true) }
        if port.isInput { try await server.unplug(port, isSink: false) }
        if port == .headset { try await server.unplug(.headsetMic, isSink: false) }
        try await server.pinDefault()
        ports.disconnect(port)
        if try await !waitForPorts() { throw try portsMismatch(after: "disconnect: \(port.rawValue)") }
    }

    /// Waits until the daemon's port lists are `ports`.
    func waitForPorts(selectionCleared: Bool = false) async throws -> Bool {
        try await poll(within: .seconds(3)) {
            let status = try self.world.status()
            return status.outputs == self.ports.outputs && status.inputs == self.ports.inputs
                && (!selectionCleared || status.selectedOutput == nil)
        }
    }

    func portsMismatch(after step: String) throws -> CLIError {
        let status = try world.status()
        let lists = LivePorts.Lists(outputs: status.outputs, inputs: status.inputs)
        return CLIError("after \(step) the daemon has \(lists), not \(ports)")
    }

}
