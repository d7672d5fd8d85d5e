import AudioSessionPolicy
import AudioSessionProtocol

/// What changed between two statuses, one line per change, for `watch` into a pipe or a file: the switch, the
/// lock, media services, the volume, a port, the selection, and each session's arrival, category, state,
/// output (with its gain when ducked), input, route, foreground/background and end. Each line starts with
/// what it is about (`switch:`, `port connected:`, `session 3 music:`) so that `grep` finds it.
enum StatusChanges {
    /// The lines for the first status a watch sees: one that sums up the daemon, one per session.
    static func summary(_ status: StatusBody) -> [String] {
        let outputs = status.outputs.isEmpty ? "none" : status.outputs.map(\.rawValue).joined(separator: ",")
        let inputs = status.inputs.isEmpty ? "none" : status.inputs.map(\.rawValue).joined(separator: ",")
        var daemon = [
            "switch \(status.silentSwitch.rawValue)",
            "screen \(status.screenLocked ? "locked" : "unlocked")",
            "media services \(status.mediaServicesAvailable ? "available" : "lost")",
            "outputs \(outputs)",
            "inputs \(inputs)",
            "selected output \(status.selectedOutput?.rawValue ?? "none")",
        ]
        if let volume = status.volume { daemon.append("volume \(VolumeLevel.percent(volume))") }
        daemon.append("sessions \(status.sessions.count)")
        return ["status: " + daemon.joined(separator: "; ")]
            + status.sessions.map { "\(name($0)): " + describe($0, in: status) }
    }

    /// The lines for each change from `old` to `new`; none when nothing they describe changed.
    static func lines(from old: StatusBody, to new: StatusBody) -> [String] {
        var lines: [String] = []
        if old.silentSwitch != new.silentSwitch { lines.append("switch: \(new.silentSwitch.rawValue)") }
        if old.screenLocked != new.screenLocked { lines.append("screen: \(new.screenLocked ? "locked" : "unlocked")") }
        if old.mediaServicesAvailable != new.mediaServicesAvailable {
            lines.append("media services: \(new.mediaServicesAvailable ? "available" : "lost")")
        }
        if let volume = new.volume, old.volume != new.volume { lines.append("volume: \(VolumeLevel.percent(volume))") }
        if old.mixerMuted != new.mixerMuted, let muted = new.mixerMuted {
            lines.append("mixer: \(muted ? "muted for the switch" : "unmuted")")
        }
        lines += portLines(from: old, to: new)
        if old.selectedOutput != new.selectedOutput {
            lines.append("selected output: \(new.selectedOutput?.rawValue ?? "none")")
        }
        let before = Dictionary(old.sessions.map { ($0.session, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.sessions.map(\.session))
        for session in old.sessions where !after.contains(session.session) { lines.append("\(name(session)): ended") }
        for session in new.sessions {
            guard let previous = before[session.session] else {
                lines.append("\(name(session)): new, " + describe(session, in: new))
                continue
            }
            lines += sessionLines(from: previous, in: old, to: session, in: new).map { "\(name(session)): \($0)" }
        }
        return lines
    }

    private static func portLines(from old: StatusBody, to new: StatusBody) -> [String] {
        let was = old.outputs + old.inputs.filter { !old.outputs.contains($0) }
        let now = new.outputs + new.inputs.filter { !new.outputs.contains($0) }
        var lines = now.filter { !was.contains($0) }.map { "port connected: \($0.rawValue)" }
        lines += was.filter { !now.contains($0) }.map { "port disconnected: \($0.rawValue)" }
        // The same ports in another order: one came back and is the most recent again.
        if lines.isEmpty && old.outputs != new.outputs {
            lines.append("outputs: " + new.outputs.map(\.rawValue).joined(separator: ", "))
        }
        if lines.isEmpty && old.inputs != new.inputs {
            lines.append("inputs: " + new.inputs.map(\.rawValue).joined(separator: ", "))
        }
        return lines
    }

    private static func sessionLines(
        from old: SessionStateBody,
        in oldStatus: StatusBody,
        to new: SessionStateBody,
        in newStatus: StatusBody
    ) -> [String] {
        var lines: [String] = []
        if old.category != new.category || old.mode != new.mode || old.options != new.options {
            lines.append("category \(categoryText(new))")
        }
        if old.state != new.state { lines.append("\(new.state.rawValue) (\(new.because))") }
        if old.appState != new.appState { lines.append(new.appState.rawValue) }
        let output = outputText(new, in: newStatus)
        if outputText(old, in: oldStatus) != output { lines.append("output \(output)") }
        if old.input != new.input { lines.append("input \(new.input.rawValue)") }
        if old.currentRoute != new.currentRoute { lines.append("route \(StatusView.routeText(new.currentRoute))") }
        return lines
    }

    /// `playback/default, active (activated (A1)), output audible, input none, route speaker`.
    static func describe(_ session: SessionStateBody, in status: StatusBody) -> String {
        "\(categoryText(session)), \(session.state.rawValue) (\(session.because)), "
            + (session.appState == .background ? "background, " : "")
            + "output \(outputText(session, in: status)), input \(session.input.rawValue), "
            + "route \(StatusView.routeText(session.currentRoute))"
    }

    /// `session 3 phone [call]`.
    static func name(_ session: SessionStateBody) -> String {
        "session \(session.session) \(StatusView.appName(session))"
    }

    /// `playAndRecord/voiceChat [allowBluetooth]`.
    static func categoryText(_ session: SessionStateBody) -> String {
        "\(session.category.rawValue)/\(session.mode.rawValue)"
            + (session.options.isEmpty ? "" : " [\(session.options.joined(separator: ","))]")
    }

    /// The session's output summary, with the gain of its ducked streams: `ducked 0.25 (-12 dB)`.
    static func outputText(_ session: SessionStateBody, in status: StatusBody) -> String {
        guard session.output == .ducked, let gain = duckedGain(of: session.session, in: status) else {
            return session.output.rawValue
        }
        return "ducked \(StatusView.gainText(gain))"
    }

    /// The loudest gain among the session's ducked streams (its output summary is the loudest of them).
    static func duckedGain(of session: Int, in status: StatusBody) -> Double? {
        status.streams.filter { $0.session == session && $0.verdict == "ducked" }.compactMap(\.gain).max()
    }
}
