import AudioSessionPolicy

// MARK: The journal the ledger calls for, kept from turn to turn

/// What the end of a turn writes to the journal when it differs from the disk, kept from one turn to the next
/// and brought up to date only for the streams that an event, or a step of its work, touched. A turn ends after
/// every event, and most events are about one stream (a report, an echo of our own write, a fade step):
/// rebuilding every stream's entry each time made a call with 100 ducked streams rebuild about 10,000 entries
/// while their echoes came in. Debug builds check each update against a rebuild of all of them.
package struct JournalCalledFor: Sendable {
    /// Each stream's entry as `turnEnded` calls for it; a stream the policy has nothing of its own on has none.
    package var entries: [StreamOrigin: JournalStreamEntry] = [:]
    /// The streams whose entry here is not the one on disk (either may be missing).
    package var differFromDisk: Set<StreamOrigin> = []
    /// The streams touched since the last update, or all of them (`everyStreamStale`).
    package var staleStreams: Set<StreamOrigin> = []
    package var everyStreamStale = true

    /// Whether the stream's entry is the one on disk, as far as this knows: nothing touched the stream since the
    /// last update, and its entry then was the disk's (or it had none, nor the disk). Its widened entry is then
    /// the disk's too: widening keeps the farther of its values and the disk's.
    package func isDiskEntry(_ origin: StreamOrigin) -> Bool {
        !everyStreamStale && !staleStreams.contains(origin) && !differFromDisk.contains(origin)
    }
}

extension StreamMachine {
    /// Marks what `event` changes of the journal's entries outside the steps of its work (which mark their own
    /// streams, `touchJournal(for: Step)`): a removed stream's, the saved entry an answer brings, what a journal
    /// write changed on disk (an entry there is compared with the one called for, and widens it); every one for
    /// an event about no stream (a device's name is in a moved stream's entry). Called before the event is
    /// handled, while `awaiting` still names the stream an answer is for and the disk holds the old journal.
    package mutating func touchJournal(for event: Event) {
        switch event {
        case .streamReported, .verdictsHandedOver, .timerFired, .corkedReported, .turnEnded: break
        case .streamRemoved(let origin): touchJournal(origin)
        case .restoreEntryRead:
            if case .restoreEntry(let report, _) = awaiting { touchJournal(report.origin) }
        case .journalWritten(let succeeded):
            guard succeeded, case .journal = awaiting, let written = journal?.written else { break }
            for (origin, entry) in journalPending where written[origin] != entry { touchJournal(origin) }
            for origin in written.keys where journalPending[origin] == nil { touchJournal(origin) }
        default: touchEveryJournalEntry()
        }
    }

    /// Marks what a step of an event's work may change: the streams it is about.
    package mutating func touchJournal(for step: Step) {
        switch step {
        case .act: break
        case .report(let report, _), .reportTail(let report, _, _): touchJournal(report.origin)
        case .perform(let write): touchJournal(write.origin)
        case .enforce(let verdicts): for handed in verdicts { touchJournal(handed.origin) }
        case .continueFade(let origin, _): touchJournal(origin)
        case .clearJournal: touchEveryJournalEntry()
        }
    }

    /// Without a journal nothing is kept: the one opened next is compared in full.
    package mutating func touchJournal(_ origin: StreamOrigin) {
        if journal != nil, !calledFor.everyStreamStale { calledFor.staleStreams.insert(origin) }
    }

    package mutating func touchEveryJournalEntry() {
        calledFor.everyStreamStale = true
        calledFor.staleStreams.removeAll()
    }

    /// Brings `calledFor` up to date with the ledger and the disk.
    package mutating func updateJournalCalledFor() {
        let written = journal?.written ?? [:]
        if calledFor.everyStreamStale {
            calledFor = Self.rebuiltCalledFor(self, written: written)
        } else {
            for origin in calledFor.staleStreams {
                let entry = journalEntry(for: origin, widening: fades[origin] != nil)
                calledFor.entries[origin] = entry
                if entry == written[origin] {
                    calledFor.differFromDisk.remove(origin)
                } else {
                    calledFor.differFromDisk.insert(origin)
                }
            }
            calledFor.staleStreams.removeAll()
        }
        assert(calledForIsCurrent(written: written), "the journal's entries kept are not the ones the ledger calls for")
    }

    private func calledForIsCurrent(written: [StreamOrigin: JournalStreamEntry]) -> Bool {
        let rebuilt = Self.rebuiltCalledFor(self, written: written)
        return rebuilt.entries == calledFor.entries && rebuilt.differFromDisk == calledFor.differFromDisk
    }

    /// Every stream's entry, from scratch.
    private static func rebuiltCalledFor(
        _ machine: StreamMachine,
        written: [StreamOrigin: JournalStreamEntry]
    ) -> JournalCalledFor {
        var rebuilt = JournalCalledFor(everyStreamStale: false)
        for origin in machine.ledger.entries.keys {
            if let entry = machine.journalEntry(for: origin, widening: machine.fades[origin] != nil) {
                rebuilt.entries[origin] = entry
            }
        }
        for origin in Set(rebuilt.entries.keys).union(written.keys) where rebuilt.entries[origin] != written[origin] {
            rebuilt.differFromDisk.insert(origin)
        }
        return rebuilt
    }
}
