import AudioSessionPolicy
import PulseBackend

// MARK: The journal's entries

extension StreamMachine {
    /// The stream's entry as it has to go to disk ahead of a write, when the disk does not hold it so; nil when
    /// there is no journal or nothing to write. The caller keeps it for `journalAhead(knowing:)`: an entry is
    /// made from the ledger, the stream's properties and the disk's entry, and making it three times for one
    /// write (the check, the journal, the check after it) took a tenth of an unaware call's path.
    package func entryToWriteAhead(_ origin: StreamOrigin) -> JournalStreamEntry? {
        guard let journal, let entry = journalEntry(for: origin, widening: true), journal.written[origin] != entry
        else { return nil }
        return entry
    }

    /// The journal to write ahead of a write: what is on disk, with every entry the ledger calls for added or
    /// changed (none removed). `known` holds entries already made for this state (`entryToWriteAhead`). A stream
    /// nothing touched since the end of the last turn, whose entry was the disk's then (`calledFor`), still has
    /// the disk's: only the others' entries are made (a call that silenced one more of a hundred streams made
    /// all hundred).
    package func journalAhead(knowing known: [StreamOrigin: JournalStreamEntry]) -> [StreamOrigin: JournalStreamEntry] {
        var entries = journal?.written ?? [:]
        for origin in ledger.entries.keys where !calledFor.isDiskEntry(origin) {
            if let entry = known[origin] ?? journalEntry(for: origin, widening: true) { entries[origin] = entry }
        }
        assert(entries == everyEntryAhead(), "an entry kept from the last turn is not the one the ledger calls for")
        return entries
    }

    /// `journalAhead` made from every stream's entry, for debug builds to check it.
    private func everyEntryAhead() -> [StreamOrigin: JournalStreamEntry] {
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
