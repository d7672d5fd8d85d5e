import AudioSessionPolicy
import PulseBackend

extension StreamMachine {
    /// What the machine is told: the server's facts as the Pulse shell read them, the verdicts the policy handed
    /// over, the timers it asked for, and the answers to its questions (`StreamAction.isQuestion`).
    package enum Event: Sendable {
        /// The journal of this connection, as crash recovery left it: what the file holds, and whether it may
        /// still hold an earlier daemon's entries (the next end of turn then writes it, even empty).
        case journalOpened(written: [StreamOrigin: JournalStreamEntry], mayHoldOlderEntries: Bool)
        /// The default sink when the daemon connects: no choice of the user's, only the starting point.
        case defaultSinkKnown(String?)
        case inventoryTaken
        /// A sink as the port rules see it; nil: not a policy port.
        case sinkReported(UInt32, name: String, port: Port?)
        case sinkRemoved(UInt32)
        /// A source as the port rules see it; a sink's monitor is no port (what the machine plays).
        case sourceReported(UInt32, name: String, port: Port?, isMonitor: Bool)
        case sourceRemoved(UInt32)
        /// The server's default sink now (after a change of the server's).
        case defaultSinkReported(String?)
        /// A stream appeared or changed, with its values; `processLine` when `needsProcessLine` said so.
        case streamReported(StreamReport, processLine: [Int32]? = nil)
        case streamRemoved(StreamOrigin)
        /// The verdicts the policy handed over since the last, in order.
        case verdictsHandedOver([HandedVerdict])
        case timerFired(StreamTimer)
        /// A reload: fades that start from now on take this long.
        case fadeChanged(milliseconds: Int)
        /// The work loop's turn is over: the journal is brought in step with the ledger.
        case turnEnded
        /// Every stream gets its user's values back; nothing is journaled after.
        case shutdown
        /// Answers, one to each question, before any other event.
        case restoreEntryRead(PulseStreamRestoreEntry?)
        case journalWritten(succeeded: Bool)
        case corkedReported(Bool?)
        case sinkListed(Bool)
    }

    /// A verdict the policy handed over for one stream.
    package struct HandedVerdict: Sendable, Equatable {
        package var origin: StreamOrigin
        package var verdict: StreamVerdict

        package init(_ origin: StreamOrigin, _ verdict: StreamVerdict) {
            self.origin = origin
            self.verdict = verdict
        }
    }
}

/// A sound-server stream as the server reports it: a sink input or a source output, with its values.
package struct StreamReport: Sendable, Equatable {
    package var origin: StreamOrigin
    package var volume: PulseVolume
    package var muted: Bool
    /// The sink (or source) it is on; `StreamLedger.noDevice` while the server links it.
    package var device: UInt32
    package var corked: Bool
    package var properties: [String: String]

    package init(
        origin: StreamOrigin,
        volume: PulseVolume,
        muted: Bool,
        device: UInt32,
        corked: Bool,
        properties: [String: String]
    ) {
        self.origin = origin
        self.volume = volume
        self.muted = muted
        self.device = device
        self.corked = corked
        self.properties = properties
    }

    package var restoreKey: String? { properties["module-stream-restore.id"] }
    package var isRecord: Bool {
        if case .sourceOutput = origin { return true }
        return false
    }
}

/// What the machine asks the shell to do: carry out, write, ask, wait. Ids and values only.
package enum StreamAction: Sendable, Equatable {
    /// Tell the policy a fact.
    case tell(SoundFact)
    /// One write to the server, made and waited for before anything else.
    case write(StreamLedger.Write)
    /// A turn's writes, one list per stream: issued together and awaited together (one round trip), each
    /// stream's in its order.
    case writeTogether([[StreamLedger.Write]])
    /// Write the stream journal whole; answered by `journalWritten`.
    case writeJournal([StreamOrigin: JournalStreamEntry])
    /// Read module-stream-restore's entry of a restore key; answered by `restoreEntryRead` (nil: none, or no
    /// module).
    case readRestoreEntry(String)
    /// A stream ended with a policy value in force: if the server keeps an entry for its key, write this one
    /// (the user's values, the device before the policy) in its place.
    case mendRestoreEntry(StreamOrigin, PulseStreamRestoreEntry)
    /// Whether the stream is corked now; answered by `corkedReported` (nil: gone).
    case askCorked(StreamOrigin)
    /// Whether the server still lists a sink of that name; answered by `sinkListed`.
    case askSinkListed(String)
    /// Send `timerFired(timer)` after `after`.
    case startTimer(StreamTimer, after: Duration)
    case log(StreamLogLine)

    /// Whether the machine waits for this action's answer before it takes any other event.
    package var isQuestion: Bool {
        switch self {
        case .writeJournal, .readRestoreEntry, .askCorked, .askSinkListed: true
        case .tell, .write, .writeTogether, .mendRestoreEntry, .startTimer, .log: false
        }
    }
}

/// The machine's timers.
package enum StreamTimer: Sendable, Hashable {
    /// A running stream corked: report it paused if it still is (the number tells this pause from a later one).
    case pauseSettled(StreamOrigin, Int)
    /// A stream held silent after the server moved it: ask the policy again if it has not spoken.
    case holdExpired(StreamOrigin)
    /// The next step of a stream's fade, if that fade is still the current one.
    case fadeStep(StreamOrigin, Int)
    /// Verdicts that waited for the stream journal (a full disk): try them again.
    case journalRetry
}

/// The lines the machine has to say; the shell words them and picks the level.
package enum StreamLogLine: Sendable, Equatable {
    /// A new stream came with the values the policy left on its app's last stream (info).
    case policyValuesTakenBack(StreamOrigin)
    /// A new stream came with the values the policy holds on another stream of its restore key (info).
    case policyValuesOfAnotherStreamTakenBack(StreamOrigin, restoreKey: String)
    /// The server moved a stream by itself; it is held silent (info).
    case heldAfterMove(StreamOrigin)
    /// Verdicts not carried out: the journal could not be written ahead of them (debug).
    case verdictsWaitForJournal(count: Int)
    /// A write not made: its journal entry could not be written (debug).
    case writeNotMade(StreamLedger.Write)
    /// Shutdown gave this many values back (info).
    case gaveBack(writes: Int)
}
