import AudioSessionPolicy
import PulseBackend

// MARK: Verdicts

extension StreamMachine {
    package struct VerdictPlan: Sendable {
        package struct Planned: Sendable {
            package var origin: StreamOrigin
            /// The volume written before, where a fade starts; nil: no fade.
            package var before: PulseVolume?
            package var writes: [StreamLedger.Write]
        }
        package var latest: [StreamOrigin: StreamVerdict] = [:]
        package var order: [StreamOrigin] = []
        package var planned: [Planned] = []
        package var entriesBefore: [StreamOrigin: StreamLedger.Entry] = [:]
    }

    /// The verdicts the policy handed over since the last turn, in one turn: the ledger takes them all in
    /// first, so that one journal write (ahead of the first server write) covers every stream they change. A
    /// verdict says all of how a stream is to sound, so only a stream's latest one counts.
    package mutating func enforce(_ verdicts: [HandedVerdict]) -> [StreamAction] {
        var plan = VerdictPlan()
        for handed in verdicts where plan.latest.updateValue(handed.verdict, forKey: handed.origin) == nil {
            plan.order.append(handed.origin)
        }
        for origin in plan.order {
            let verdict = plan.latest[origin]!
            let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
            plan.entriesBefore[origin] = ledger.entries[origin]
            unjournaled[origin] = nil
            let wasSilenced = ledger.entries[origin]?.isSilenced ?? false
            let before = ledger.entries[origin]?.writtenVolume
            fades[origin] = nil
            let writes = ledger.apply(verdict, to: origin, device: device)
            // Silence and its end are at once, as a mute was: only a change between gains above 0 fades (O7).
            let fades = !wasSilenced && ledger.entries[origin]?.isSilenced == false
            plan.planned.append(.init(origin: origin, before: fades ? before : nil, writes: writes))
        }
        // Every entry the turn needs goes to disk first, in one write.
        var ahead: [StreamOrigin: JournalStreamEntry] = [:]
        for stream in plan.planned where stream.writes.contains(where: holdsBack) {
            if let entry = entryToWriteAhead(stream.origin) { ahead[stream.origin] = entry }
        }
        let needed = plan.planned.map(\.origin).filter { ahead[$0] != nil }
        guard needed.isEmpty else {
            return askToWrite(journalAhead(knowing: ahead), then: .verdicts(plan, needed: needed))
        }
        return finishVerdicts(plan, refused: [])
    }

    /// A stream whose entry could not be written (the disk is full) keeps its user's values: the policy does not
    /// hold silenced what a crash could leave silenced with nothing on disk to undo it. Its verdict waits and is
    /// tried again. Giving a stream back its user's values needs no entry, and is never held back.
    package mutating func finishVerdicts(_ plan: VerdictPlan, refused: Set<StreamOrigin>) -> [StreamAction] {
        var actions: [StreamAction] = []
        var planned = plan.planned
        if !refused.isEmpty {
            planned.removeAll { refused.contains($0.origin) }
            for origin in plan.order where refused.contains(origin) {
                let verdict = plan.latest[origin]!
                ledger.putBack(plan.entriesBefore[origin], for: origin)
                unjournaled[origin] = verdict
                // What gives the stream back toward its user's values (an unmute, a louder volume) is made now.
                let device = devices.device(for: verdict.port, isSink: origin.isSinkInput)
                let givingBack = ledger.giveBack(verdict, to: origin, device: device)
                if !givingBack.isEmpty { planned.append(.init(origin: origin, before: nil, writes: givingBack)) }
            }
            actions.append(.log(.verdictsWaitForJournal(count: refused.count)))
            if !journalRetryPending {
                journalRetryPending = true
                actions.append(.startTimer(.journalRetry, after: Self.journalRetry))
            }
        }
        // The writes of the turn are issued together (each stream's in order) and awaited together: one round
        // trip for the turn instead of one per write, and still no report is read before they are all done.
        // Moves are the exception (below).
        var writesByStream: [[StreamLedger.Write]] = []
        var fading: [Step] = []
        for stream in planned {
            var direct: [StreamLedger.Write] = []
            for write in stream.writes {
                if case .volume(let origin, let target) = write, let before = stream.before, fadeMilliseconds > 0,
                    origin.isSinkInput
                {
                    startFade(origin, from: before, to: target)
                } else {
                    if case .volume(let origin, let volume) = write { ledger.noteWritten(volume, for: origin) }
                    direct.append(write)
                }
            }
            if !direct.isEmpty { writesByStream.append(direct) }
            if let fade = fades[stream.origin] { fading.append(.continueFade(stream.origin, fade.id)) }
        }
        // A stream that moves has its writes sent after the others', once those are answered. The server reports
        // no change before it has carried out every request it read at once, and a move is slow there (the
        // stream leaves one device's thread for another's): sent together, it would keep every other app from
        // learning that the interrupted streams went silent until the interrupter had moved. Their silence
        // itself is in force as each write is carried out; what waits is the report of it.
        let moving = writesByStream.filter { $0.contains(where: \.isMove) }
        let staying = writesByStream.filter { !$0.contains(where: \.isMove) }
        for batch in [staying, moving] where !batch.isEmpty { actions.append(.writeTogether(batch)) }
        agenda.insert(contentsOf: fading, at: 0)
        return actions
    }

    // MARK: Fades

    /// Ducking and its end are reached in steps over `duckFadeMs` (O7), never in one jump.
    package mutating func startFade(_ origin: StreamOrigin, from: PulseVolume, to: PulseVolume) {
        let steps = StreamLedger.fadeSteps(
            from: from,
            to: to,
            milliseconds: fadeMilliseconds,
            stepMilliseconds: Self.fadeStepMilliseconds
        )
        fades[origin] = Fade(id: nextFade, steps: steps)
        nextFade += 1
    }

    package mutating func continueFade(_ origin: StreamOrigin, _ id: Int) {
        guard var fade = fades[origin], fade.id == id, !fade.steps.isEmpty else { return }
        let volume = fade.steps.removeFirst()
        fades[origin] = fade.steps.isEmpty ? nil : fade
        var next: [Step] = [.perform(.volume(origin, volume))]
        if !fade.steps.isEmpty { next.append(.act(.startTimer(.fadeStep(origin, id), after: Self.fadeStep))) }
        agenda.insert(contentsOf: next, at: 0)
    }
}
