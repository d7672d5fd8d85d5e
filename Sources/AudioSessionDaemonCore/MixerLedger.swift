/// The ALSA mixer control as the daemon keeps it: the user's own mute and volume apart from the daemon's hold
/// for the silent switch, so that what the control shows is always "the user's values, held muted or not", and
/// giving back restores exactly the user's values. A control with no switch is held at volume 0 instead.
package struct MixerLedger: Sendable, Equatable, Codable {
    /// What the control shows: its playback switch off (muted) and its volume, linear 0 to 1.
    package struct Reading: Sendable, Equatable, Codable {
        package var muted: Bool
        package var volume: Double

        package init(muted: Bool, volume: Double) {
            self.muted = muted
            self.volume = volume
        }
    }

    package let hasSwitch: Bool
    /// The user's own values: what the control showed before the daemon held it, and every change made
    /// outside the daemon since.
    package var user: Reading
    package var held = false
    /// What the daemon last wrote (or read): a reading equal to it is the daemon's own change coming back.
    package var lastSeen: Reading

    package init(hasSwitch: Bool, reading: Reading) {
        self.hasSwitch = hasSwitch
        self.user = reading
        self.lastSeen = reading
    }

    /// What the control must show now.
    package var wanted: Reading {
        guard held else { return user }
        return hasSwitch ? Reading(muted: true, volume: user.volume) : Reading(muted: user.muted, volume: 0)
    }

    /// What happened to a reading of the control.
    package enum Observation: Equatable {
        /// The daemon's own write, or nothing new.
        case unchanged
        /// Someone else changed it: these are the user's values now (the volume is the new system volume); an
        /// unmute (or a volume above 0 on a control with no switch) while held ends the hold, the user's wish
        /// standing until the switch's next decision.
        case changedByUser(volumeChanged: Bool, holdEnded: Bool)
    }

    /// A reading of the control, after it signalled a change.
    package mutating func observe(_ reading: Reading) -> Observation {
        guard !reading.isClose(to: lastSeen) else { return .unchanged }
        lastSeen = reading
        let volumeChanged = !Reading.isClose(reading.volume, user.volume)
        var holdEnded = false
        if held {
            let heard = hasSwitch ? !reading.muted : reading.volume > 0
            if heard {
                held = false
                holdEnded = true
                user = reading
            } else if hasSwitch {
                // Still muted: only the volume is the user's.
                user.volume = reading.volume
            } else {
                user.muted = reading.muted
            }
        } else {
            user = reading
        }
        return .changedByUser(volumeChanged: volumeChanged && (!held || hasSwitch), holdEnded: holdEnded)
    }

    /// Holds or gives back; returns what to write, nil when the control already shows it.
    package mutating func hold(_ held: Bool) -> Reading? {
        self.held = held
        return write()
    }

    /// The system volume set through the daemon (`setVolume`); returns what to write.
    package mutating func setVolume(_ volume: Double) -> Reading? {
        user.volume = volume
        return write()
    }

    /// What the control showed after a write: a control has whole steps, so reading back may differ a little
    /// from what was written, and that is not the user's doing.
    package mutating func wrote(_ actual: Reading) {
        lastSeen = actual
    }

    private mutating func write() -> Reading? {
        let target = wanted
        guard !target.isClose(to: lastSeen) else { return nil }
        lastSeen = target
        return target
    }
}

extension MixerLedger.Reading {
    /// Volumes within half a percent are the same: a control has whole steps, and reading back what was
    /// written gives the nearest one.
    package static func isClose(_ left: Double, _ right: Double) -> Bool { abs(left - right) < 0.005 }

    package func isClose(to other: Self) -> Bool { muted == other.muted && Self.isClose(volume, other.volume) }
}
