import AudioSessionPolicy
import PulseBackend

// MARK: The journal's entries

extension StreamMachine {
    /// Whether the stream's entry has to go to disk ahead of a write and is not there as it must be.
    package func journalNeedsWrite(_ origin: StreamOrigin) -> Bool {
        guard let journal, let entry = journalEntry(for: origin, widening: true) else { return false }
        return journal.written[origin] != entry
    }

    /// The journal to write ahead of a write: what is on disk, with every entry the ledger calls for added or
    /// changed (none removed).
    package func journalAhead() -> [StreamOrigin: JournalStreamEntry] {
        var entries = journal?.written ?? [:]
        for origin in ledger.entries.keys {
            if let entry = journalEntry(for: origin, widening: true) { entries[origin] = entry }
        }
        return entries
    }

    /// The journal entry the ledger calls for now: one while the policy has anything of its own on the stream.
    /// Its policy volume spans the user's volume, the policy's aim and what was last written; `widening` also
    /// keeps the span and mute of the entry on disk (for the same user's values), for when the server may still
    /// have an earlier value of the policy's: ahead of a write, and while a fade goes on.
    package func journalEntry(for origin: StreamOrigin, widening: Bool) -> JournalStreamEntry? {
        guard let entry = ledger.entries[origin], entry.policyChanges else { return nil }
        let kind: JournalStreamEntry.Kind
        let index: UInt32
        switch origin {
        case .sinkInput(let number): (kind, index) = (.sinkInput, number)
        case .sourceOutput(let number): (kind, index) = (.sourceOutput, number)
        case .client: return nil
        }
        let user = entry.userVolume.channels
        var policyVolume = Self.farther(entry.policyVolume.channels, entry.writtenVolume.channels, from: user)
        // The policy silences with a volume of 0 and leaves the flag to the user: a mute that is not the user's
        // is one an older daemon left, still taken back.
        var policyMuted = entry.writtenMuted && !entry.userMuted
        if widening, let before = journal?.written[origin], before.userVolume == user,
            before.userMuted == entry.userMuted
        {
            policyVolume = Self.farther(policyVolume, before.policyVolume, from: user)
            policyMuted = policyMuted || before.policyMuted
        }
        let isSink = kind == .sinkInput
        let properties = lastReported[origin]?.properties ?? [:]
        let saved = savedBeforePolicy[origin] ?? nil
        return JournalStreamEntry(
            kind: kind,
            index: index,
            application: properties["application.name"],
            processID: properties["application.process.id"],
            role: properties["media.role"],
            userVolume: user,
            userMuted: entry.userMuted,
            policyVolume: policyVolume,
            policyMuted: policyMuted,
            movedFrom: entry.isMovedByPolicy
                ? entry.deviceBeforePolicy.flatMap { devices.name(of: $0, isSink: isSink) } : nil,
            movedTo: entry.isMovedByPolicy ? entry.requestedDevice : nil,
            restoreKey: entry.restoreKey,
            restoreDevice: saved?.device
        )
    }

    /// Per channel, whichever of `a` and `b` is farther from `user` (`a` where the channel maps differ).
    package static func farther(_ a: [UInt32], _ b: [UInt32], from user: [UInt32]) -> [UInt32] {
        guard a.count == b.count, a.count == user.count else { return a }
        return zip(zip(a, b), user).map { pair, user in
            let (a, b) = pair
            return a.distance(to: user).magnitude >= b.distance(to: user).magnitude ? a : b
        }
    }
}
