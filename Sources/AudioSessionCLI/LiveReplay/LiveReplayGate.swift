import AudioSessionPolicy
import AudioSessionScenario

/// What a live replay cannot do, found before touching the daemon: each answer is the reason printed with
/// `skip FILE: reason`.
enum LiveReplayGate {
    /// Why `scenario` cannot run against a daemon that runs with `daemonConfig`; nil when it can.
    /// With `timeScale`, the daemon's timers are that many times the scenario's.
    static func reasonToSkip(_ scenario: Scenario, daemonConfig: PolicyConfig, timeScale: Int = 1) -> String? {
        if scenario.steps.contains(where: { $0.action == .mediaServicesLost || $0.action == .mediaServicesReset }) {
            return "needs to kill the sound server (mediaServices steps)"
        }
        for player in scenario.sessions where player.isMediaPlayer {
            if let reason = mpvCannotPlay(player) { return reason }
        }
        // D8: the daemon exempts an app of its socket by the program it runs, never by its name; the replay's
        // sessions are all audiosessionctl.
        if let named = scenario.sessions.first(where: { !$0.isUnaware && scenario.config.callExemptApps.contains($0.name) }) {
            return "exempts \(named.name) from A2 by name: the daemon exempts an app of its socket only by the program it runs"
        }
        var daemonTimes = daemonConfig
        daemonTimes.graceMs = daemonConfig.graceMs / max(1, timeScale)
        daemonTimes.playerTimeoutMs = daemonConfig.playerTimeoutMs / max(1, timeScale)
        let differences = differences(scenario.config, daemonTimes)
        if !differences.isEmpty {
            return "sets policy config the running daemon does not have (\(differences.joined(separator: ", ")))"
        }
        for spec in scenario.sessions where spec.isUnaware {
            let actions = scenario.steps.map(\.action)
            if actions.contains(.play(spec.name)) && actions.contains(.record(spec.name)) {
                return "the unaware app \(spec.name) both plays and records: the daemon makes a session of each "
                    + "direction, the engine one"
            }
        }
        let device = LivePorts.Lists(outputs: scenario.device.outputs, inputs: scenario.device.inputs)
        if LivePorts.plugOrder(for: device) == nil {
            return "no real devices make the device lists (\(device)): a headset brings headsetMic, and bluetoothHFP "
                + "and usbAudio are both an output and an input"
        }
        return nil
    }

    /// A player is played live by mpv (`LivePlayer`), its `stream:` properties given through `PULSE_PROP`:
    /// why a player's properties cannot be, or nil.
    static func mpvCannotPlay(_ player: SessionSpec) -> String? {
        let properties = player.declaration.unawareStreamProperties ?? [:]
        if properties["application.process.id"] != nil {
            return "\(player.name)'s stream sets application.process.id: live it is mpv's, by which the daemon finds the player"
        }
        if let quoted = properties.first(where: { $0.value.contains("'") }) {
            return "\(player.name)'s stream property \(quoted.key) has a quote, which PULSE_PROP cannot pass to mpv"
        }
        return nil
    }

    /// The config keys whose values differ, as `key: scenario's value`.
    static func differences(_ wanted: PolicyConfig, _ daemon: PolicyConfig) -> [String] {
        var found: [String] = []
        if wanted.duckLevel != daemon.duckLevel { found.append("duckLevel: \(wanted.duckLevel)") }
        if wanted.duckFadeMs != daemon.duckFadeMs { found.append("duckFadeMs: \(wanted.duckFadeMs)") }
        if wanted.graceMs != daemon.graceMs { found.append("graceMs: \(wanted.graceMs)") }
        if wanted.playerTimeoutMs != daemon.playerTimeoutMs {
            found.append("playerTimeoutMs: \(wanted.playerTimeoutMs)")
        }
        if wanted.callExemptApps != daemon.callExemptApps {
            found.append("callExemptApps: [\(wanted.callExemptApps.joined(separator: ", "))]")
        }
        if wanted.rules != daemon.rules { found.append("rules") }
        return found
    }
}
