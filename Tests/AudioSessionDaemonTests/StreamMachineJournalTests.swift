import AudioSessionDaemonCore
import AudioSessionPolicy
import PulseBackend
import Testing

/// The journal the end of a turn writes, kept from turn to turn (`StreamMachine+CalledFor.swift`): a turn
/// about one stream brings only that stream's entry up to date, and what is written is what the ledger calls
/// for. No server, no disk.
@Suite struct StreamMachineJournalTests {
    static let streams = (20..<25).map { StreamOrigin.sinkInput(UInt32($0)) }
    static let seventy = PulseVolume(channels: [45875, 45875])
    static let forty = PulseVolume(channels: [26214, 26214])
    static let zero = PulseVolume(channels: [0, 0])
    static let silent = StreamVerdict(level: .silent, port: .speaker, reason: Reason(.A6))

    static func report(_ origin: StreamOrigin, _ volume: PulseVolume) -> StreamReport {
        StreamReport(
            origin: origin,
            volume: volume,
            muted: false,
            device: 0,
            corked: false,
            properties: ["media.role": "music", "application.name": "player"]
        )
    }

    typealias Journal = [StreamOrigin: JournalStreamEntry]

    /// Hands `event` over and answers every question as a server and a disk that work would; returns every
    /// journal the machine asked to write.
    static func feed(_ machine: inout StreamMachine, _ event: StreamMachine.Event) -> [Journal] {
        var journals: [Journal] = []
        var pending = machine.handle(event)[...]
        while let action = pending.popFirst() {
            var answer: StreamMachine.Event?
            switch action {
            case .writeJournal(let entries):
                journals.append(entries)
                answer = .journalWritten(succeeded: true)
            case .readRestoreEntry: answer = .restoreEntryRead(nil)
            case .askCorked: answer = .corkedReported(false)
            case .askSinkListed: answer = .sinkListed(true)
            default: answer = nil
            }
            if let answer { pending.append(contentsOf: machine.handle(answer)) }
        }
        return journals
    }

    /// Five streams silenced and journaled, each one's echo seen.
    static func fiveSilencedStreams() -> StreamMachine {
        var machine = StreamMachine(fadeMilliseconds: 0)
        _ = feed(&machine, .journalOpened(written: [:], mayHoldOlderEntries: false))
        for origin in streams { _ = feed(&machine, .streamReported(report(origin, seventy), processLine: [])) }
        _ = feed(&machine, .turnEnded)
        _ = feed(&machine, .verdictsHandedOver(streams.map { .init($0, silent) }))
        _ = feed(&machine, .turnEnded)
        for origin in streams {
            _ = feed(&machine, .streamReported(report(origin, zero)))
            _ = feed(&machine, .turnEnded)
        }
        return machine
    }

    @Test func theSilencedStreamsAreJournaledWithTheirUsersVolume() {
        let machine = Self.fiveSilencedStreams()
        #expect(machine.journal?.written.count == 5)
        for origin in Self.streams {
            #expect(machine.journal?.written[origin]?.userVolume == Self.seventy.channels)
            #expect(machine.journal?.written[origin]?.policyVolume == Self.zero.channels)
        }
    }

    @Test func anEchoOfOneStreamLeavesTheOtherStreamsEntriesAsTheyAre() {
        var machine = Self.fiveSilencedStreams()
        _ = machine.handle(.streamReported(Self.report(Self.streams[1], Self.zero)))
        #expect(machine.calledFor.everyStreamStale == false)
        #expect(machine.calledFor.staleStreams == [Self.streams[1]])
        #expect(Self.feed(&machine, .turnEnded) == [], "nothing changed: nothing written")
        #expect(machine.calledFor.staleStreams.isEmpty)
    }

    @Test func theUsersNewVolumeOfOneStreamIsWrittenWithTheOthersEntries() {
        var machine = Self.fiveSilencedStreams()
        // The user sets 40 % on a silenced stream; the policy silences it again on the user's new value.
        var journals = Self.feed(&machine, .streamReported(Self.report(Self.streams[3], Self.forty)))
        journals += Self.feed(&machine, .turnEnded)
        #expect(!journals.isEmpty)
        let written = machine.journal?.written ?? [:]
        #expect(written[Self.streams[3]]?.userVolume == Self.forty.channels)
        for origin in Self.streams where origin != Self.streams[3] {
            #expect(written[origin]?.userVolume == Self.seventy.channels)
        }
        for origin in Self.streams {
            #expect(written[origin] == machine.journalEntry(for: origin, widening: false))
        }
    }

    /// Ahead of a write only the entries of the streams the turn touched are made; the others are the disk's
    /// (`journalAhead`): what is written still holds every stream's.
    @Test func aStreamSilencedBesideFiveJournaledOnesIsWrittenAheadWithThem() {
        var machine = Self.fiveSilencedStreams()
        let sixth = StreamOrigin.sinkInput(30)
        _ = Self.feed(&machine, .streamReported(Self.report(sixth, Self.seventy), processLine: []))
        _ = Self.feed(&machine, .turnEnded)
        let before = machine.journal?.written ?? [:]
        #expect(before.count == 5)
        let journals = Self.feed(&machine, .verdictsHandedOver([.init(sixth, Self.silent)]))
        #expect(journals.count == 1, "one journal, ahead of the sixth stream's silence")
        let ahead = journals.first ?? [:]
        #expect(ahead.count == 6)
        for origin in Self.streams { #expect(ahead[origin] == before[origin]) }
        #expect(ahead[sixth]?.userVolume == Self.seventy.channels)
        #expect(ahead[sixth]?.policyVolume == Self.zero.channels)
        #expect(machine.journal?.written == ahead)
    }

    /// An entry's copies share its values until one is changed (`JournalStreamEntry.Shared`).
    @Test func aChangedCopyOfAnEntryLeavesTheEntryAsItWas() {
        let machine = Self.fiveSilencedStreams()
        guard let entry = machine.journal?.written[Self.streams[0]] else {
            Issue.record("no entry for the first stream")
            return
        }
        var copy = entry
        #expect(copy == entry)
        copy.values.userVolume = Self.forty.channels
        #expect(copy != entry)
        #expect(entry.userVolume == Self.seventy.channels)
        #expect(copy.userVolume == Self.forty.channels)
        copy.values.userVolume = Self.seventy.channels
        #expect(copy == entry, "equal values are equal entries, shared or not")
    }

    @Test func aRemovedStreamLeavesTheJournalAtTheEndOfItsTurn() {
        var machine = Self.fiveSilencedStreams()
        _ = Self.feed(&machine, .streamRemoved(Self.streams[0]))
        _ = Self.feed(&machine, .turnEnded)
        #expect(machine.journal?.written[Self.streams[0]] == nil)
        #expect(machine.journal?.written.count == 4)
    }
}
