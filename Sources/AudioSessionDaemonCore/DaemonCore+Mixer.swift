import AudioSessionPolicy
import AudioSessionProtocol

/// The ALSA mixer control of a daemon without a sound server, as the core sees it.
package struct MixerState: Sendable, Equatable {
    /// The system volume, linear 0 to 1: the last the daemon set or saw someone else set.
    package var volume: Double
    /// Whether the daemon holds the control muted for the silent switch (the user's own mute is the backend's).
    package var heldMuted = false
    /// The user unmuted the control while it was held: it is not held again until the switch would give it
    /// back and then hold it anew.
    package var releasedByUser = false
}

extension DaemonCore {
    /// What the mixer backend saw: the control opened (with its volume) or someone else changed the volume.
    package mutating func mixerVolumeSeen(_ volume: Double) {
        let opened = mixer == nil
        if opened || mixer?.volume != volume {
            effects.append(
                .log(
                    opened
                        ? "mixer: system volume \(Self.percent(volume))"
                        : "mixer: volume set to \(Self.percent(volume)) outside the daemon; that is the system volume now"
                )
            )
        }
        if mixer == nil { mixer = MixerState(volume: volume) }
        mixer?.volume = volume
    }

    /// The control went away (card removed): nothing is held on it any more.
    package mutating func mixerGone(_ reason: String) {
        guard mixer != nil else { return }
        mixer = nil
        effects.append(.log("mixer: gone: \(reason)"))
    }

    package mutating func mixerReleasedByUser() {
        guard mixer?.heldMuted == true else { return }
        mixer?.heldMuted = false
        mixer?.releasedByUser = true
        effects.append(
            .log(
                "mixer: unmuted by the user while held for the silent switch; left so until the switch's next decision"
            )
        )
    }

    /// `setVolume`: the system volume, on the mixer control.
    package mutating func setVolume(_ request: Request, _ client: ClientID, _ volume: Double) {
        guard mixer != nil else {
            return fail(
                request,
                client,
                ErrorBody(
                    code: PolicyErrorCode.badParam.rawValue,
                    message:
                        "setVolume: this daemon has no mixer control (it runs with a sound server, or alsa.mixer is off or could not be opened); set the volume with the sound server's own tools",
                    field: "volume"
                )
            )
        }
        mixer?.volume = volume
        effects.append(.setMixerVolume(volume))
        effects.append(.log("mixer: system volume set to \(Self.percent(volume))"))
        send(client, .reply(.success(request.id)))
    }

    /// After every input: the switch mutes the control while it is set to silent and nothing the policy lets be
    /// heard is playing. Apps of the client library silence their own samples per stream (O4); the control is
    /// what reaches apps that play to ALSA without it.
    package mutating func holdMixerForSilentSwitch() {
        guard let held = mixer?.heldMuted else { return }
        let wanted = engine.silentSwitchPosition == .silent && !isAnyOutputHeard
        if mixer?.releasedByUser == true {
            if !wanted { mixer?.releasedByUser = false }
            return
        }
        guard wanted != held else { return }
        mixer?.heldMuted = wanted
        effects.append(.holdMixerMuted(wanted))
        effects.append(
            .log(
                wanted
                    ? "mixer: muted: the switch is silent and nothing that may be heard plays (O4)"
                    : "mixer: given back: \(engine.silentSwitchPosition == .silent ? "a stream the switch spares is playing" : "the switch is on ring")"
            )
        )
    }

    /// A running output stream the policy lets be heard (audible or ducked).
    private var isAnyOutputHeard: Bool {
        streamIDs.values.contains { stream in
            guard engine.isRunning(stream), let level = engine.verdict(of: stream)?.level else { return false }
            switch level {
            case .audible, .ducked: return true
            case .silent, .capturing, .muted: return false
            }
        }
    }

    private static func percent(_ volume: Double) -> String { "\(Int((volume * 100).rounded()))%" }
}
