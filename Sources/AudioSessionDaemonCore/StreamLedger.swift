import AudioSessionPolicy
import PulseBackend

/// What the daemon knows of each sound-server stream it may change: the user's own volume and mute, apart
/// from what the policy applied, so that the policy never overwrites them and always gives them back.
///
/// The policy's part is a gain layer on the user's volume: the written volume is the user's volume times the
/// policy's gain (1 audible, the duck level ducked, 0 silent: a silenced stream is at volume 0). The mute flag
/// is the user's alone: the server has one flag per stream, and a flag the policy set would hide the user's
/// mute made during the hold (setting a set flag changes nothing the server reports). So whatever the user sets
/// during a hold, volume or mute, is seen, kept as the user's, and is what the stream has after it; the hold
/// wins while it lasts (a volume the user sets is put back to 0 at once, an unmute leaves it at 0), as on iOS.
///
/// Pure bookkeeping: it is told what the server reports and what the policy decides, and answers with the
/// writes to make. The caller makes them one at a time, in order, so every report it gets afterwards already
/// reflects them: a reported value that differs from what was written can only be someone else's change.
package struct StreamLedger: Sendable {
    package init() {}

    package private(set) var entries: [StreamOrigin: Entry] = [:]

    /// What the policy had in force on a stream when it ended, by the stream's restore key. The server may
    /// have saved those values for the app's next stream of the same kind (WirePlumber's restore-stream does;
    /// PulseAudio's module-stream-restore is mended when the stream ends instead): a next stream that starts
    /// with exactly them gets its user's values back, so a policy value is never left behind.
    package private(set) var leftBehind: [String: LeftBehind] = [:]

    package struct LeftBehind: Sendable, Equatable {
        package var volume: PulseVolume
        package var muted: Bool
        package var userVolume: PulseVolume
        package var userMuted: Bool
    }

    /// Enough for every app of a machine; a flood of restore keys cannot grow the ledger past it.
    package static let leftBehindLimit = 256

    package struct Entry: Sendable, Equatable {
        /// The user's own values: what the stream had before the policy touched it, or what the user set since.
        package var userVolume: PulseVolume
        package var userMuted: Bool
        /// What the policy wants now: silence (a gain of 0, whatever `policyGain` is), or the user's volume
        /// times `policyGain`.
        package var policySilenced = false
        package var policyGain = 1.0
        /// What was last written (or first seen), to tell the user's changes from the policy's.
        package var writtenVolume: PulseVolume
        package var writtenMuted: Bool
        /// The device the stream is on, and the one the policy moved it to.
        package var device: UInt32
        package var requestedDevice: UInt32?
        /// The device the stream was on when the policy first moved it.
        package var deviceBeforePolicy: UInt32?
        /// module-stream-restore's key for the stream, to put the user's values back there when it ends.
        package var restoreKey: String?
        /// Silenced after the server moved the stream by itself (a device went away), until the policy's next
        /// verdict for it: so a stream R4 stops is not heard on the fallback device meanwhile.
        package var heldSinceMove = false

        /// Created from a report PipeWire makes while it links a new stream (no device, volume 0), before the
        /// values it restores for it: those may still be what the policy left on the app's last stream.
        package var awaitingValues = false
        /// Whether the policy has given the stream a verdict yet.
        package var judged = false

        /// Whether anything the policy set is in force now.
        package var policyInForce: Bool { writtenMuted != userMuted || writtenVolume != userVolume }

        /// Whether the policy holds the stream silent now (a verdict, or the hold after a server move).
        package var isSilenced: Bool { policySilenced || heldSinceMove }

        /// The volume the policy wants written: the user's volume through the policy's gain layer.
        package var policyVolume: PulseVolume {
            if isSilenced { return PulseVolume(channels: userVolume.channels.map { _ in PulseVolume.muted }) }
            return policyGain == 1 ? userVolume : userVolume.scaled(by: policyGain)
        }

        /// Whether the policy has, or is about to have, something of its own on the stream (a silence, a gain,
        /// a device): while it does, the stream journal keeps the user's values.
        package var policyChanges: Bool {
            policyInForce || isSilenced || policyGain != 1 || isMovedByPolicy
        }

        /// On a device the policy chose, other than the one it was on before.
        package var isMovedByPolicy: Bool {
            guard let requestedDevice, let deviceBeforePolicy else { return false }
            return requestedDevice != deviceBeforePolicy
        }
    }

    /// What to write to the server.
    package enum Write: Sendable, Hashable {
        case volume(StreamOrigin, PulseVolume)
        case mute(StreamOrigin, Bool)
        case move(StreamOrigin, toDevice: UInt32)
    }

    /// What a report said beyond the known.
    package enum Observation: Sendable, Equatable {
        case nothingNew
        /// The server moved the stream by itself; it is held silent until the policy says otherwise.
        case movedByServer
        /// A new stream came with the values the policy left on the app's last stream (`leftBehind`); the
        /// user's values are given back to it.
        case policyValuesTakenBack
        /// A new stream came with the values the policy holds on another known stream of its restore key (the
        /// server saved them for the key as they were written); that stream's user values are given to it.
        case policyValuesOfAnotherStreamTakenBack
        /// The user (or a mixer app) set the stream's volume: it is the user's volume now, and a fade of the
        /// policy's on the way must stop, or its next step would write over it. During a hold it is put back to
        /// silence at once, and comes back when the hold ends.
        case userSetVolume
    }

    // MARK: Reports

    /// A stream's current values as the server reports them. The first report takes them as the user's; later
    /// ones that differ from what was written are the user's changes (a volume changed while ducked becomes
    /// the user's volume and stands; a mute or volume changed while silenced is the user's after the hold).
    package mutating func observe(
        _ origin: StreamOrigin,
        volume: PulseVolume,
        muted: Bool,
        device: UInt32,
        restoreKey: String?
    ) -> (Observation, [Write]) {
        let provisional = device == Self.noDevice || volume.average == 0
        if let key = restoreKey, entries[origin]?.awaitingValues ?? true {
            // PipeWire first shows a new stream on no device and at volume 0, before the values it restores.
            if let left = leftBehind[key], !(provisional && volume != left.volume) {
                leftBehind[key] = nil
                if volume == left.volume && muted == left.muted {
                    let writes = takeBack(left, origin, volume: volume, muted: muted, device: device, restoreKey: key)
                    return (.policyValuesTakenBack, writes)
                }
            }
            // A report on a device at volume 0 may be the server's saved silence of another stream of the key
            // (the policy's hold, saved as the policy wrote it): it is looked at, unlike PipeWire's first one.
            if device != Self.noDevice,
                let held = policyValues(onAnotherStreamOf: key, volume: volume, muted: muted, besides: origin)
            {
                let writes = takeBack(held, origin, volume: volume, muted: muted, device: device, restoreKey: key)
                return (.policyValuesOfAnotherStreamTakenBack, writes)
            }
        }
        guard var entry = entries[origin] else {
            var entry = Entry(firstSeen: volume, muted: muted, device: device, restoreKey: restoreKey)
            entry.awaitingValues = provisional
            entries[origin] = entry
            return (.nothingNew, [])
        }
        // The first values after PipeWire's provisional ones (volume 0 while it links the stream; it may report
        // the stream running before its volume): the stream's own, not a change the user made. A verdict given
        // meanwhile stands, on them: a duck of the placeholder 0 wrote nothing, and is written now.
        let firstValues = entry.awaitingValues && !provisional
        if !provisional { entry.awaitingValues = false }
        entry.restoreKey = restoreKey ?? entry.restoreKey
        var writes: [Write] = []
        var observation = Observation.nothingNew
        if volume != entry.writtenVolume {
            entry.userVolume = volume
            entry.writtenVolume = volume
            if !firstValues {
                entry.policyGain = 1
                if !provisional { observation = .userSetVolume }
            }
            // The policy's verdict stands on the new user volume: a silence always (the user set the volume of a
            // stream the policy keeps silent: it is the user's for after the hold, and the stream goes back to
            // silence now), any verdict on the first values. The written volume is noted as the write is made.
            if (entry.isSilenced || (firstValues && entry.judged)) && entry.policyVolume != volume {
                writes.append(.volume(origin, entry.policyVolume))
            }
        }
        // The mute flag is the user's alone: a mute or unmute made during a hold is what the stream has after
        // it, and changes nothing while the hold (a volume of 0) lasts.
        if muted != entry.writtenMuted {
            entry.userMuted = muted
            entry.writtenMuted = muted
        }
        // PipeWire reports no device (PA_INVALID_INDEX) while it links a stream, new or moving: that is no move.
        if entry.device == Self.noDevice {
            entry.device = device
        } else if device != entry.device && device != Self.noDevice {
            entry.device = device
            if device != entry.requestedDevice {
                observation = .movedByServer
                let wasSilenced = entry.isSilenced
                entry.heldSinceMove = true
                // A volume the user set in this same report was already put back to silence above.
                if !wasSilenced && entry.writtenVolume != entry.policyVolume {
                    writes.append(.volume(origin, entry.policyVolume))
                }
            }
        }
        entries[origin] = entry
        return (observation, writes)
    }

    /// The policy's values in force on another known stream of restore key `key`, when they are `volume` and
    /// `muted`: the server saved them for the key as the policy wrote them (WirePlumber's restore-stream and
    /// module-stream-restore save a stream's values as they change) and gives them to each new stream of the
    /// key. Nil when a stream of the key has those values as its user's own: the saved ones may be the user's.
    private func policyValues(
        onAnotherStreamOf key: String, volume: PulseVolume, muted: Bool, besides origin: StreamOrigin
    ) -> LeftBehind? {
        let sameKey = entries.filter { $0.key != origin && $0.value.restoreKey == key && !$0.value.awaitingValues }
            .sorted { $0.key.description < $1.key.description }
        guard !sameKey.contains(where: { $0.value.userVolume == volume && $0.value.userMuted == muted }),
            let holder = sameKey.first(where: {
                $0.value.policyInForce && $0.value.writtenVolume == volume && $0.value.writtenMuted == muted
            })?.value
        else { return nil }
        return LeftBehind(
            volume: holder.writtenVolume,
            muted: holder.writtenMuted,
            userVolume: holder.userVolume,
            userMuted: holder.userMuted
        )
    }

    /// What the server reports as the device of a stream that is on none (`PA_INVALID_INDEX`).
    package static let noDevice = UInt32.max

    /// The stream is gone. Returns its entry if the policy had something in force or had moved it, so the
    /// caller can put the user's values back into the server's saved stream state.
    package mutating func remove(_ origin: StreamOrigin) -> Entry? {
        guard let entry = entries.removeValue(forKey: origin) else { return nil }
        if entry.policyInForce, let key = entry.restoreKey {
            if leftBehind[key] == nil && leftBehind.count >= Self.leftBehindLimit {
                leftBehind.remove(at: leftBehind.startIndex)
            }
            leftBehind[key] = LeftBehind(
                volume: entry.writtenVolume,
                muted: entry.writtenMuted,
                userVolume: entry.userVolume,
                userMuted: entry.userMuted
            )
        }
        return entry.policyInForce || entry.requestedDevice != nil ? entry : nil
    }

    /// A new stream came with the values the policy left on the app's last one: the user's values of that
    /// one are its user's values, and what the policy decides for it now is applied on top of them.
    private mutating func takeBack(
        _ left: LeftBehind,
        _ origin: StreamOrigin,
        volume: PulseVolume,
        muted: Bool,
        device: UInt32,
        restoreKey: String
    ) -> [Write] {
        var entry = entries[origin] ?? Entry(firstSeen: volume, muted: muted, device: device, restoreKey: restoreKey)
        if entry.device == Self.noDevice { entry.device = device }
        entry.awaitingValues = false
        entry.userVolume = left.userVolume
        entry.userMuted = left.userMuted
        entry.writtenVolume = volume
        entry.writtenMuted = muted
        // Not judged yet: its first verdict writes the user's values with the policy's on top; writing them now
        // could let a stream that starts during a call be heard until then.
        guard entry.judged else {
            entries[origin] = entry
            return []
        }
        var writes: [Write] = []
        if entry.policyVolume != volume {
            entry.writtenVolume = entry.policyVolume
            writes.append(.volume(origin, entry.policyVolume))
        }
        if entry.userMuted != muted {
            entry.writtenMuted = entry.userMuted
            writes.append(.mute(origin, entry.userMuted))
        }
        entries[origin] = entry
        return writes
    }

    package mutating func removeAll() { entries.removeAll() }

    /// Undoes `apply` for a stream whose verdict is not carried out (its journal entry could not be written):
    /// the entry as it was before.
    package mutating func putBack(_ entry: Entry?, for origin: StreamOrigin) {
        guard entries[origin] != nil else { return }
        entries[origin] = entry
    }

    // MARK: Verdicts

    /// The writes that carry out a verdict: volume 0 for silent/muted, the user's volume scaled for ducked, the
    /// user's own volume otherwise (the mute flag stays the user's); a move when the verdict's port is on
    /// another device. A volume is returned as its end point; `fadeSteps` gives the way there.
    package mutating func apply(_ verdict: StreamVerdict, to origin: StreamOrigin, device: UInt32?) -> [Write] {
        guard var entry = entries[origin] else { return [] }
        var writes: [Write] = []
        entry.judged = true
        entry.heldSinceMove = false
        switch verdict.level {
        case .silent, .muted:
            entry.policySilenced = true
        case .ducked(let gain, _):
            entry.policySilenced = false
            entry.policyGain = gain
        case .audible, .capturing:
            entry.policySilenced = false
            entry.policyGain = 1
        }
        let targetVolume = entry.policyVolume
        if let device, device != entry.device {
            if entry.deviceBeforePolicy == nil { entry.deviceBeforePolicy = entry.device }
            entry.requestedDevice = device
            writes.append(.move(origin, toDevice: device))
        }
        // The written volume is noted by the caller as it writes (`noteWritten`), step by step for a fade.
        if targetVolume != entry.writtenVolume {
            writes.append(.volume(origin, targetVolume))
        }
        // Only a flag an older daemon left (a journal of the policy's mute) differs from the user's here.
        if entry.userMuted != entry.writtenMuted {
            entry.writtenMuted = entry.userMuted
            writes.append(.mute(origin, entry.userMuted))
        }
        entries[origin] = entry
        return writes
    }

    /// What can be carried out of a verdict whose journal entry cannot be written (the disk is full): only a
    /// louder volume, which takes the stream back toward its user's values and which a crash could not leave
    /// behind; silence, a quieter volume and a move wait for the journal. The end of a silence waits too when the
    /// verdict moves the stream: it is not to be heard where it is before the move.
    package mutating func giveBack(_ verdict: StreamVerdict, to origin: StreamOrigin, device: UInt32?) -> [Write] {
        guard var entry = entries[origin] else { return [] }
        let moves = device.map { $0 != entry.device } ?? false
        var after = entry
        switch verdict.level {
        case .silent, .muted: return []
        case .ducked(let gain, _): after.policyGain = gain
        case .audible, .capturing: after.policyGain = 1
        }
        after.policySilenced = false
        after.heldSinceMove = false
        guard !(entry.isSilenced && moves), Self.loudness(after.policyVolume) > Self.loudness(entry.writtenVolume)
        else { return [] }
        entry = after
        entries[origin] = entry
        return [.volume(origin, entry.policyVolume)]
    }

    /// A volume's channels summed, to tell a louder volume from a quieter one.
    package static func loudness(_ volume: PulseVolume) -> UInt64 { volume.channels.reduce(0) { $0 + UInt64($1) } }

    /// A write the caller could not make (its journal entry could not be written): the stream keeps what it
    /// had, so the next verdict that wants the same makes the write then instead of taking it for made.
    package mutating func notMade(_ write: Write) {
        if case .mute(let origin, let muted) = write { entries[origin]?.writtenMuted = !muted }
    }

    /// Notes a volume about to be written (the end point, or a fade step on the way), so its report is not
    /// taken for the user's.
    package mutating func noteWritten(_ volume: PulseVolume, for origin: StreamOrigin) {
        entries[origin]?.writtenVolume = volume
    }

    /// The writes that give every stream its user's values back (shutdown).
    package mutating func restoreAll() -> [Write] {
        var writes: [Write] = []
        for (origin, entry) in entries.sorted(by: { $0.key.description < $1.key.description }) {
            if entry.writtenVolume != entry.userVolume { writes.append(.volume(origin, entry.userVolume)) }
            if entry.writtenMuted != entry.userMuted { writes.append(.mute(origin, entry.userMuted)) }
            entries[origin]?.writtenVolume = entry.userVolume
            entries[origin]?.writtenMuted = entry.userMuted
            entries[origin]?.policySilenced = false
            entries[origin]?.heldSinceMove = false
            entries[origin]?.policyGain = 1
        }
        return writes
    }

    /// The volumes between `from` and `to` for a fade of `milliseconds`, one every `stepMilliseconds`,
    /// ending at `to`.
    package static func fadeSteps(from: PulseVolume, to: PulseVolume, milliseconds: Int, stepMilliseconds: Int = 25) -> [PulseVolume] {
        let count = max(1, milliseconds / stepMilliseconds)
        guard count > 1, from.channels.count == to.channels.count else { return [to] }
        return (1...count).map { step in
            let fraction = Double(step) / Double(count)
            return PulseVolume(
                channels: zip(from.channels, to.channels).map { start, end in
                    UInt32((Double(start) + (Double(end) - Double(start)) * fraction).rounded())
                }
            )
        }
    }
}

extension StreamLedger.Entry {
    /// A stream as first reported: its values are the user's, and nothing of the policy's is on it yet.
    package init(firstSeen volume: PulseVolume, muted: Bool, device: UInt32, restoreKey: String?) {
        self.init(
            userVolume: volume,
            userMuted: muted,
            writtenVolume: volume,
            writtenMuted: muted,
            device: device,
            restoreKey: restoreKey
        )
    }
}
