import AudioSessionPolicy
import PulseBackend

// MARK: Streams

extension StreamMachine {
    /// A stream's report. A playback stream seen for the first time with a restore key waits for the server's
    /// saved entry of that key first (module-stream-restore), to undo what the policy makes it save.
    package mutating func streamReported(_ report: StreamReport, processLine: [Int32]?) -> [StreamAction] {
        let origin = report.origin
        if report.isRecord {
            // A stream that records a sink's monitor (a level meter, a screen recorder) takes what the machine
            // plays, not the user's voice: the policy neither moves it to the microphone (R6) nor mutes it for a
            // call (docs/POLICY-NOTES.md). A recorder already in the policy's hands that moves onto a monitor
            // stays there.
            guard !monitorSources.contains(report.device) || ledger.entries[origin] != nil else { return [] }
        } else if let key = report.restoreKey, savedBeforePolicy[origin] == nil, ledger.entries[origin] == nil {
            awaiting = .restoreEntry(report, processLine: processLine)
            return [.readRestoreEntry(key)]
        }
        return run([.report(report, processLine: processLine)])
    }

    /// What a report says beyond the known; a stream the server moved by itself (its device went away) is silenced
    /// at once and held until the policy speaks, so it is not heard on the fallback device meanwhile (R4).
    package mutating func observe(_ report: StreamReport, processLine: [Int32]?) {
        let (observation, writes) = ledger.observe(
            report.origin,
            volume: report.volume,
            muted: report.muted,
            device: report.device,
            restoreKey: report.restoreKey
        )
        agenda.insert(
            contentsOf: writes.map(Step.perform) + [.reportTail(report, observation, processLine: processLine)],
            at: 0
        )
    }

    package mutating func reportTail(
        _ report: StreamReport,
        _ observation: StreamLedger.Observation,
        processLine: [Int32]?
    ) -> [StreamAction] {
        let origin = report.origin
        var actions: [StreamAction] = []
        if report.isRecord {
            if observation == .movedByServer {
                actions.append(.startTimer(.holdExpired(origin), after: Self.holdAfterMove))
            }
            let stream = SoundStream(
                origin: origin,
                direction: .input,
                properties: report.properties,
                isRunning: !report.corked
            )
            return actions + reportStream(stream)
        }
        switch observation {
        case .policyValuesTakenBack: actions.append(.log(.policyValuesTakenBack(origin)))
        case .policyValuesOfAnotherStreamTakenBack:
            actions.append(.log(.policyValuesOfAnotherStreamTakenBack(origin, restoreKey: report.restoreKey ?? "")))
        case .userSetVolume: fades[origin] = nil
        case .movedByServer:
            fades[origin] = nil
            actions.append(.log(.heldAfterMove(origin)))
            actions.append(.startTimer(.holdExpired(origin), after: Self.holdAfterMove))
        case .nothingNew: break
        }
        if processLines[origin] == nil { processLines[origin] = processLine ?? [] }
        let stream = SoundStream(
            origin: origin,
            direction: .output,
            properties: report.properties,
            isRunning: !report.corked,
            processLine: processLines[origin] ?? []
        )
        return actions + reportStream(stream)
    }

    /// Tells the policy of a stream, except that a running stream that corks is reported paused only once it
    /// has stayed corked for `pauseSettling`.
    package mutating func reportStream(_ stream: SoundStream) -> [StreamAction] {
        let origin = stream.origin
        lastReported[origin] = stream
        if stream.isRunning {
            unsettledPauses[origin] = nil
        } else if reportedRunning[origin] == true {
            guard unsettledPauses[origin] == nil else { return [] }
            let pause = nextPause
            nextPause += 1
            unsettledPauses[origin] = pause
            return [.startTimer(.pauseSettled(origin, pause), after: Self.pauseSettling)]
        }
        reportedRunning[origin] = stream.isRunning
        return [.tell(.streamSeen(stream))]
    }

    /// A stream ended: if the policy had changed it, the user's values go back into module-stream-restore's
    /// saved state, so the app's next stream does not start ducked or muted.
    package mutating func streamRemoved(_ origin: StreamOrigin) -> [StreamAction] {
        fades[origin] = nil
        unjournaled[origin] = nil
        reportedRunning[origin] = nil
        unsettledPauses[origin] = nil
        lastReported[origin] = nil
        processLines[origin] = nil
        var actions: [StreamAction] = [.tell(.streamGone(origin))]
        let before = savedBeforePolicy.removeValue(forKey: origin) ?? nil
        if let entry = ledger.remove(origin), let key = entry.restoreKey {
            let mended = PulseStreamRestoreEntry(
                key: key,
                volume: entry.userVolume,
                muted: entry.userMuted,
                device: before?.device
            )
            actions.append(.mendRestoreEntry(origin, mended))
        }
        return actions
    }

    // MARK: Timers

    package mutating func timerFired(_ timer: StreamTimer) -> [StreamAction] {
        switch timer {
        case .pauseSettled(let origin, let pause):
            guard unsettledPauses[origin] == pause else { return [] }
            unsettledPauses[origin] = nil
            if case .client = origin { return [] }
            awaiting = .corked(origin)
            return [.askCorked(origin)]
        case .holdExpired(let origin):
            return ledger.entries[origin]?.heldSinceMove == true ? [.tell(.streamMovedByServer(origin))] : []
        case .fadeStep(let origin, let fade):
            return run([.continueFade(origin, fade)])
        case .journalRetry:
            journalRetryPending = false
            let waiting = unjournaled.sorted { $0.key.description < $1.key.description }.map {
                HandedVerdict($0.key, $0.value)
            }
            unjournaled.removeAll()
            return run([.enforce(waiting)])
        }
    }

    // MARK: Shutdown

    /// Every stream the policy changed gets its user's values back before the daemon exits.
    package mutating func shutdown() -> [StreamAction] {
        fades.removeAll()
        let writes = ledger.restoreAll()
        return run(writes.map(Step.perform) + [.clearJournal, .act(.log(.gaveBack(writes: writes.count)))])
    }
}
