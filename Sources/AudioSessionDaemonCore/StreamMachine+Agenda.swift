import AudioSessionPolicy
import PulseBackend

// MARK: The agenda

extension StreamMachine {
    /// A piece of an event's work; a step that asks a question leaves the rest for after its answer.
    package enum Step: Sendable {
        case act(StreamAction)
        case report(StreamReport, processLine: [Int32]?)
        case reportTail(StreamReport, StreamLedger.Observation, processLine: [Int32]?)
        /// One write, journaled ahead if it holds the stream back from its user's values.
        case perform(StreamLedger.Write)
        case enforce([HandedVerdict])
        case continueFade(StreamOrigin, Int)
        case clearJournal
    }

    package enum Awaiting: Sendable {
        case restoreEntry(StreamReport, processLine: [Int32]?)
        case journal(then: AfterJournal)
        case corked(StreamOrigin)
        case sinkListed(chosen: Port)
    }

    package enum AfterJournal: Sendable {
        case perform(StreamLedger.Write)
        case verdicts(VerdictPlan, needed: [StreamOrigin])
        case endOfTurn
        case clear
    }

    /// Runs `steps` before whatever the event in hand has left, until done or waiting for an answer.
    package mutating func run(_ steps: [Step]) -> [StreamAction] {
        agenda.insert(contentsOf: steps, at: 0)
        return drain()
    }

    package mutating func drain() -> [StreamAction] {
        var actions: [StreamAction] = []
        while awaiting == nil, !agenda.isEmpty {
            actions += take(agenda.removeFirst())
        }
        return actions
    }

    package mutating func take(_ step: Step) -> [StreamAction] {
        touchJournal(for: step)
        switch step {
        case .act(let action): return [action]
        case .report(let report, let processLine):
            observe(report, processLine: processLine)
            return []
        case .reportTail(let report, let observation, let processLine):
            return reportTail(report, observation, processLine: processLine)
        case .perform(let write): return perform(write)
        case .enforce(let verdicts): return enforce(verdicts)
        case .continueFade(let origin, let fade):
            continueFade(origin, fade)
            return []
        case .clearJournal:
            guard let journal else { return [] }
            guard !journal.written.isEmpty || journal.mayHoldOlderEntries else {
                self.journal = nil
                return []
            }
            return askToWrite([:], then: .clear)
        }
    }

    package mutating func askToWrite(
        _ entries: [StreamOrigin: JournalStreamEntry],
        then next: AfterJournal
    ) -> [StreamAction] {
        journalPending = entries
        awaiting = .journal(then: next)
        return [.writeJournal(entries)]
    }

    package mutating func journalWritten(succeeded: Bool) -> [StreamAction] {
        guard case .journal(let next) = awaiting else { return [] }
        awaiting = nil
        if succeeded {
            journal?.written = journalPending
            journal?.mayHoldOlderEntries = false
        }
        journalPending = [:]
        // What was written is what the ledger calls for (nothing changed it meanwhile: the write is answered in
        // the step that asked for it), so a written entry needs no write and an unwritten one still does.
        switch next {
        case .perform(let write):
            assert(succeeded == (entryToWriteAhead(write.origin) == nil), "the journal's answer and the ledger disagree")
            return finishPerform(write, journaled: succeeded) + drain()
        case .verdicts(let plan, let needed):
            let refused: Set<StreamOrigin> = succeeded ? [] : Set(needed)
            assert(refused == Set(needed.filter { entryToWriteAhead($0) != nil }), "the journal's answer and the ledger disagree")
            return finishVerdicts(plan, refused: refused) + drain()
        case .endOfTurn: return drain()
        case .clear:
            journal = nil
            return drain()
        }
    }

    /// The end of a turn: the whole journal as the ledger calls for it. Ahead of a write only additions and
    /// changes are made; an entry goes away here, once the writes that gave the user's values back were made.
    package mutating func turnEnded() -> [StreamAction] {
        guard journal != nil, awaiting == nil else { return [] }
        updateJournalCalledFor()
        guard let journal, !calledFor.differFromDisk.isEmpty || journal.mayHoldOlderEntries else { return [] }
        return askToWrite(calledFor.entries, then: .endOfTurn)
    }

    // MARK: Writes

    /// One write; a write whose journal entry could not be written is not made (a stream the server moved is
    /// then not held silent; a fade step is skipped).
    package mutating func perform(_ write: StreamLedger.Write) -> [StreamAction] {
        if let entry = entryToWriteAhead(write.origin) {
            return askToWrite(journalAhead(knowing: [write.origin: entry]), then: .perform(write))
        }
        return finishPerform(write, journaled: true)
    }

    /// Makes `write` unless it holds the stream back and its entry is not on disk (`journaled` false).
    package mutating func finishPerform(_ write: StreamLedger.Write, journaled: Bool) -> [StreamAction] {
        guard journaled || !holdsBack(write) else {
            ledger.notMade(write)
            return [.log(.writeNotMade(write))]
        }
        if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
        return [.write(write)]
    }

    /// Whether a write takes a stream farther from its user's values (a mute, a move, a quieter volume): only
    /// those wait for the journal; one that gives values back is made whatever the disk says.
    package func holdsBack(_ write: StreamLedger.Write) -> Bool {
        switch write {
        case .mute(_, let muted): return muted
        case .move: return true
        case .volume(let origin, let volume):
            guard let written = ledger.entries[origin]?.writtenVolume else { return false }
            return StreamLedger.loudness(volume) < StreamLedger.loudness(written)
        }
    }
}
