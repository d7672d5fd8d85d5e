import AudioSessionPolicy
// PulseVolume (its scale and `scaled(by:)` are libpulse's cubic curve, as in `StreamLedger`) and
// PulseStreamRestoreEntry are values here; nothing of the connection is used.
import PulseBackend

/// The decisions of one sound-server connection, as a value: the server's facts and the policy's verdicts in,
/// what to tell the policy, write to the server, journal, ask and wait for out (`StreamAction`). No I/O, no
/// clock: timers are actions (`startTimer`) that come back as `timerFired`.
///
/// The shell (`PulseSession`) runs the actions in order and makes one server call at a time, so every report
/// it hands in already shows the machine's own writes. Where a decision needs something only the server or the
/// disk can say (a saved restore entry, whether a stream is still corked, whether the journal could be
/// written), the machine asks (`StreamAction.isQuestion`, always the last action of a list) and goes on with
/// the answer, which the shell hands in before any other event.
package struct StreamMachine: Sendable {
    /// How long ducking and its end take (duckFadeMs); a reload changes it.
    package private(set) var fadeMilliseconds: Int
    package private(set) var devices = DeviceTable()
    package var ledger = StreamLedger()
    /// Sources that are sinks' monitors: what the machine plays, not the user's voice.
    package var monitorSources: Set<UInt32> = []
    package var defaultSink: String?
    package var fades: [StreamOrigin: Fade] = [:]
    package var nextFade = 1
    /// module-stream-restore's entry for each stream as it was when the stream appeared (nil inside: none), so
    /// that what the policy made it save (a ducked volume, a mute, a device) can be undone when it ends.
    package var savedBeforePolicy: [StreamOrigin: PulseStreamRestoreEntry?] = [:]
    /// Whether each stream was last reported running, and the pauses not reported yet (see `reportStream`).
    package var reportedRunning: [StreamOrigin: Bool] = [:]
    package var unsettledPauses: [StreamOrigin: Int] = [:]
    package var nextPause = 1
    package var lastReported: [StreamOrigin: SoundStream] = [:]
    /// Each playback stream's process and its ancestors, read by the shell when it first appears (section 6b).
    package var processLines: [StreamOrigin: [Int32]] = [:]
    /// What the stream journal holds; nil: no journal (no state directory, or after shutdown).
    package var journal: JournalOnDisk?
    /// What is being written to the journal, until its answer.
    package var journalPending: [StreamOrigin: JournalStreamEntry] = [:]
    /// Verdicts not carried out because the journal could not be written ahead of them (a full disk): the
    /// stream keeps its user's values meanwhile, and they are tried again after `journalRetry`.
    package var unjournaled: [StreamOrigin: StreamVerdict] = [:]
    package var journalRetryPending = false
    /// What the end of a turn writes, kept from turn to turn (`StreamMachine+CalledFor.swift`).
    package var calledFor = JournalCalledFor()
    /// Work of the event in hand still to do (`StreamMachine+Agenda.swift`), and the answer it waits for.
    package var agenda: [Step] = []
    package var awaiting: Awaiting?

    /// How long a running stream must stay corked to count as paused: PipeWire corks a stream for a few
    /// milliseconds while it moves it, which is not the app pausing (a pause then play would restart a stream
    /// R4 stopped, O3).
    package static let pauseSettling = Duration.milliseconds(150)
    /// How long a stream the server moved stays held silent when no verdict comes.
    package static let holdAfterMove = Duration.milliseconds(300)
    package static let fadeStepMilliseconds = 25
    package static let fadeStep = Duration.milliseconds(fadeStepMilliseconds)
    package static let journalRetry = Duration.seconds(1)

    package struct JournalOnDisk: Sendable, Equatable {
        package var written: [StreamOrigin: JournalStreamEntry] = [:]
        /// The file may hold what an earlier daemon wrote: the next end of turn writes it even if unchanged.
        package var mayHoldOlderEntries = false
    }

    package struct Fade: Sendable, Equatable {
        package var id: Int
        package var steps: [PulseVolume]
    }

    package init(fadeMilliseconds: Int) {
        self.fadeMilliseconds = fadeMilliseconds
    }

    /// Whether the shell should read the process line of a stream it reports (only when it first appears).
    package func needsProcessLine(_ origin: StreamOrigin) -> Bool { processLines[origin] == nil }

    package mutating func handle(_ event: Event) -> [StreamAction] {
        touchJournal(for: event)
        switch event {
        case .journalOpened(let written, let older):
            journal = JournalOnDisk(written: written, mayHoldOlderEntries: older)
            return []
        case .defaultSinkKnown(let name):
            defaultSink = name
            return []
        case .inventoryTaken: return [.tell(.inventoryTaken)]
        case .sinkReported(let index, let name, let port):
            guard let port else { return [] }
            return devices.update(index, name: name, port: port, isSink: true).map(StreamAction.tell)
        case .sinkRemoved(let index): return devices.remove(index, isSink: true).map(StreamAction.tell)
        case .sourceReported(let index, let name, let port, let isMonitor):
            guard !isMonitor else {
                monitorSources.insert(index)
                return []
            }
            guard let port else { return [] }
            return devices.update(index, name: name, port: port, isSink: false).map(StreamAction.tell)
        case .sourceRemoved(let index):
            monitorSources.remove(index)
            return devices.remove(index, isSink: false).map(StreamAction.tell)
        case .defaultSinkReported(let name): return defaultSinkReported(name)
        case .streamReported(let report, let processLine): return streamReported(report, processLine: processLine)
        case .streamRemoved(let origin): return streamRemoved(origin)
        case .verdictsHandedOver(let verdicts): return run([.enforce(verdicts)])
        case .timerFired(let timer): return timerFired(timer)
        case .fadeChanged(let milliseconds):
            fadeMilliseconds = milliseconds
            return []
        case .turnEnded: return turnEnded()
        case .shutdown: return shutdown()
        case .restoreEntryRead(let entry):
            guard case .restoreEntry(let report, let processLine) = awaiting else { return [] }
            awaiting = nil
            savedBeforePolicy[report.origin] = .some(entry)
            return run([.report(report, processLine: processLine)])
        case .journalWritten(let succeeded): return journalWritten(succeeded: succeeded)
        case .corkedReported(let corked):
            guard case .corked(let origin) = awaiting else { return [] }
            awaiting = nil
            var actions: [StreamAction] = []
            if corked == true, var paused = lastReported[origin] {
                paused.isRunning = false
                reportedRunning[origin] = false
                actions.append(.tell(.streamSeen(paused)))
            }
            return actions + drain()
        case .sinkListed(let listed):
            guard case .sinkListed(let chosen) = awaiting else { return [] }
            awaiting = nil
            // PulseAudio announces the new default before the removal of the old one: a previous default that
            // is gone by now was replaced by the server, not by the user.
            return (listed ? [.tell(.outputSelectedByUser(chosen))] : []) + drain()
        }
    }

    // MARK: Devices

    /// A default sink that someone changed to a device that was already there is the user picking an output
    /// (R3); one the server changed because a device came or went is not.
    private mutating func defaultSinkReported(_ current: String?) -> [StreamAction] {
        let previous = defaultSink
        defaultSink = current
        guard let current, current != previous, let previous, devices.sink(named: previous) != nil,
            let chosen = devices.sink(named: current)
        else { return [] }
        awaiting = .sinkListed(chosen: chosen.device.port)
        return [.askSinkListed(previous)]
    }
}

extension StreamLedger.Write {
    package var origin: StreamOrigin {
        switch self {
        case .volume(let origin, _), .mute(let origin, _), .move(let origin, _): origin
        }
    }

    package var isMove: Bool {
        if case .move = self { return true }
        return false
    }
}

extension StreamOrigin {
    package var isSinkInput: Bool {
        if case .sinkInput = self { return true }
        return false
    }
}

extension DeviceTable {
    package func name(of index: UInt32, isSink: Bool) -> String? {
        (isSink ? sinks : sources)[index]?.name
    }
}
