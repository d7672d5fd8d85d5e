import AudioSessionDaemonCore
import AudioSessionPolicy
import PulseBackend
import Testing

@testable import AudioSessionDaemon

/// The stream machine from recorded transcripts: the server's facts, the policy's verdicts, timers and answers
/// in, the exact actions out, line by line. No server, no disk, no clock.
@Suite struct StreamMachineTests {
    /// One event and the actions it must give.
    struct Line: Sendable {
        var event: StreamMachine.Event
        var actions: [StreamAction]
    }

    struct Transcript: Sendable, CustomTestStringConvertible {
        var name: String
        var fadeMilliseconds = 0
        /// With a stream journal (a state directory), empty at the start.
        var journal = false
        var lines: [Line]
        var testDescription: String { name }
    }

    static func on(_ event: StreamMachine.Event, _ actions: [StreamAction]) -> Line {
        Line(event: event, actions: actions)
    }

    // MARK: The recordings' values

    static let music = StreamOrigin.sinkInput(4)
    static let key = "sink-input-by-media-role:music"
    static let properties = ["media.role": "music", "application.name": "player", "module-stream-restore.id": key]
    static let seventy = PulseVolume(channels: [45875, 45875])
    static let fifty = PulseVolume(channels: [32768, 32768])
    static let quarter = seventy.scaled(by: 0.25)
    /// The policy's silence: a gain of 0 on the user's volume; the mute flag is the user's.
    static let zero = PulseVolume(channels: [0, 0])
    static let silent = StreamVerdict(level: .silent, port: .speaker, reason: Reason(.A6))
    static let ducked = StreamVerdict(
        level: .ducked(gain: 0.25, fadeMilliseconds: 75),
        port: .speaker,
        reason: Reason(.O7)
    )
    static let audible = StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8))
    static let audibleOnHeadphones = StreamVerdict(level: .audible, port: .headphones, reason: Reason(.R3))

    static func report(
        volume: PulseVolume = seventy,
        muted: Bool = false,
        device: UInt32 = 0,
        corked: Bool = false
    ) -> StreamReport {
        StreamReport(
            origin: music,
            volume: volume,
            muted: muted,
            device: device,
            corked: corked,
            properties: properties
        )
    }

    static func seen(running: Bool = true, processLine: [Int32] = [42]) -> StreamAction {
        .tell(
            .streamSeen(
                SoundStream(
                    origin: music,
                    direction: .output,
                    properties: properties,
                    isRunning: running,
                    processLine: processLine
                )
            )
        )
    }

    static func verdict(_ verdict: StreamVerdict) -> StreamMachine.Event {
        .verdictsHandedOver([.init(music, verdict)])
    }

    static func entry(
        userVolume: PulseVolume = seventy,
        userMuted: Bool = false,
        policyVolume: PulseVolume = seventy,
        policyMuted: Bool = false,
        movedFrom: String? = nil,
        movedTo: UInt32? = nil
    ) -> [StreamOrigin: JournalStreamEntry] {
        [
            music: JournalStreamEntry(
                kind: .sinkInput,
                index: 4,
                application: "player",
                processID: nil,
                role: "music",
                userVolume: userVolume.channels,
                userMuted: userMuted,
                policyVolume: policyVolume.channels,
                policyMuted: policyMuted,
                movedFrom: movedFrom,
                movedTo: movedTo,
                restoreKey: key
            )
        ]
    }

    /// The speaker, and the music stream on it seen for the first time, with no saved restore entry.
    static let appears: [Line] = [
        on(.sinkReported(0, name: "speaker", port: .speaker), [.tell(.portAvailable(.speaker))]),
        on(.streamReported(report(), processLine: [42]), [.readRestoreEntry(key)]),
        on(.restoreEntryRead(nil), [seen()]),
        on(.turnEnded, []),
    ]

    static let fadeDown = StreamLedger.fadeSteps(from: seventy, to: quarter, milliseconds: 75)
    static let fadeUp = StreamLedger.fadeSteps(from: quarter, to: seventy, milliseconds: 75)

    static let transcripts: [Transcript] = [
        Transcript(name: "a stream that appears is told with its values and process line", lines: appears),
        Transcript(
            name: "a verdict that silences writes the journal first, then the volume 0, at once",
            fadeMilliseconds: 75,
            journal: true,
            lines: appears + [
                on(verdict(silent), [.writeJournal(entry(policyVolume: zero))]),
                on(.journalWritten(succeeded: true), [.writeTogether([[.volume(music, zero)]])]),
                on(.turnEnded, []),
                on(verdict(audible), [.writeTogether([[.volume(music, seventy)]])]),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: true), []),
            ]
        ),
        Transcript(
            name: "a volume the user sets while ducked stops the fade and stands",
            fadeMilliseconds: 75,
            journal: true,
            lines: appears + [
                on(verdict(ducked), [.writeJournal(entry(policyVolume: quarter))]),
                on(
                    .journalWritten(succeeded: true),
                    [.write(.volume(music, fadeDown[0])), .startTimer(.fadeStep(music, 1), after: .milliseconds(25))]
                ),
                on(.turnEnded, []),
                on(.streamReported(report(volume: fifty)), [seen()]),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: true), []),
                on(.timerFired(.fadeStep(music, 1)), []),
                on(verdict(audible), []),
                on(.turnEnded, []),
            ]
        ),
        Transcript(
            name: "a mute the user makes during a hold is seen, kept, and the stream's after the hold",
            journal: true,
            lines: appears + [
                on(verdict(silent), [.writeJournal(entry(policyVolume: zero))]),
                on(.journalWritten(succeeded: true), [.writeTogether([[.volume(music, zero)]])]),
                on(.streamReported(report(volume: zero)), [seen()]),
                on(.turnEnded, []),
                // The user mutes the held stream: the flag is the user's, nothing is written back.
                on(.streamReported(report(volume: zero, muted: true)), [seen()]),
                on(.turnEnded, [.writeJournal(entry(userMuted: true, policyVolume: zero))]),
                on(.journalWritten(succeeded: true), []),
                // The hold ends: the user's volume comes back, the user's mute stays.
                on(verdict(audible), [.writeTogether([[.volume(music, seventy)]])]),
                on(.streamReported(report(volume: seventy, muted: true)), [seen()]),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: true), []),
            ]
        ),
        Transcript(
            name: "a volume the user sets during a hold is journaled, put back to silence, and the stream's after it",
            journal: true,
            lines: appears + [
                on(verdict(silent), [.writeJournal(entry(policyVolume: zero))]),
                on(.journalWritten(succeeded: true), [.writeTogether([[.volume(music, zero)]])]),
                on(.turnEnded, []),
                on(.streamReported(report(volume: fifty)), [.writeJournal(entry(userVolume: fifty, policyVolume: zero))]),
                on(.journalWritten(succeeded: true), [.write(.volume(music, zero)), seen()]),
                on(.turnEnded, []),
                on(verdict(audible), [.writeTogether([[.volume(music, fifty)]])]),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: true), []),
            ]
        ),
        Transcript(
            name: "a corked stream is told paused only once it stayed corked past the settling time",
            lines: appears + [
                on(
                    .streamReported(report(corked: true)),
                    [.startTimer(.pauseSettled(music, 1), after: .milliseconds(150))]
                ),
                on(.streamReported(report(corked: false)), [seen()]),
                on(.timerFired(.pauseSettled(music, 1)), []),
                on(
                    .streamReported(report(corked: true)),
                    [.startTimer(.pauseSettled(music, 2), after: .milliseconds(150))]
                ),
                on(.streamReported(report(corked: true)), []),
                on(.timerFired(.pauseSettled(music, 2)), [.askCorked(music)]),
                on(.corkedReported(true), [seen(running: false)]),
            ]
        ),
        Transcript(
            name: "a stream the server moves is held silent, journaled first, and the policy asked again after the hold",
            journal: true,
            lines: appears + [
                on(.sinkReported(1, name: "headphones", port: .headphones), [.tell(.portAvailable(.headphones))]),
                on(.streamReported(report(device: 1)), [.writeJournal(entry(policyVolume: zero))]),
                on(
                    .journalWritten(succeeded: true),
                    [
                        .write(.volume(music, zero)), .log(.heldAfterMove(music)),
                        .startTimer(.holdExpired(music), after: .milliseconds(300)), seen(),
                    ]
                ),
                on(.turnEnded, []),
                on(.timerFired(.holdExpired(music)), [.tell(.streamMovedByServer(music))]),
                // The policy's verdict ends the hold: the stream goes back to the speaker (a move of the policy's,
                // journaled first) and is heard again; a later expiry asks nothing.
                on(verdict(audible), [.writeJournal(entry(policyVolume: zero, movedFrom: "headphones", movedTo: 0))]),
                on(
                    .journalWritten(succeeded: true),
                    [.writeTogether([[.move(music, toDevice: 0), .volume(music, seventy)]])]
                ),
                on(.timerFired(.holdExpired(music)), []),
            ]
        ),
        Transcript(
            name: "ducking and its end are reached in 25 ms steps over the fade time",
            fadeMilliseconds: 75,
            lines: appears + [
                on(
                    verdict(ducked),
                    [.write(.volume(music, fadeDown[0])), .startTimer(.fadeStep(music, 1), after: .milliseconds(25))]
                ),
                on(
                    .timerFired(.fadeStep(music, 1)),
                    [.write(.volume(music, fadeDown[1])), .startTimer(.fadeStep(music, 1), after: .milliseconds(25))]
                ),
                on(.timerFired(.fadeStep(music, 1)), [.write(.volume(music, fadeDown[2]))]),
                on(.timerFired(.fadeStep(music, 1)), []),
                on(
                    verdict(audible),
                    [.write(.volume(music, fadeUp[0])), .startTimer(.fadeStep(music, 2), after: .milliseconds(25))]
                ),
                // A verdict during a fade replaces it: the old fade's steps are not made.
                on(
                    verdict(ducked),
                    [
                        .write(
                            .volume(music, StreamLedger.fadeSteps(from: fadeUp[0], to: quarter, milliseconds: 75)[0])
                        ), .startTimer(.fadeStep(music, 3), after: .milliseconds(25)),
                    ]
                ),
                on(.timerFired(.fadeStep(music, 2)), []),
            ]
        ),
        Transcript(
            name: "a full disk: the verdict waits, what gives back is made, and it is tried again",
            journal: true,
            lines: appears + [
                on(.sinkReported(1, name: "headphones", port: .headphones), [.tell(.portAvailable(.headphones))]),
                on(verdict(ducked), [.writeJournal(entry(policyVolume: quarter))]),
                on(.journalWritten(succeeded: true), [.writeTogether([[.volume(music, quarter)]])]),
                on(.turnEnded, []),
                // The disk is full now: ducked -> audible on the headphones needs a new entry (the move), which
                // cannot be written. The louder volume gives back and is made; the move waits.
                on(
                    verdict(audibleOnHeadphones),
                    [.writeJournal(entry(policyVolume: quarter, movedFrom: "speaker", movedTo: 1))]
                ),
                on(
                    .journalWritten(succeeded: false),
                    [
                        .log(.verdictsWaitForJournal(count: 1)), .startTimer(.journalRetry, after: .seconds(1)),
                        .writeTogether([[.volume(music, seventy)]]),
                    ]
                ),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: false), []),
                // A second verdict that cannot be journaled does not start a second retry.
                on(
                    verdict(audibleOnHeadphones),
                    [.writeJournal(entry(policyVolume: quarter, movedFrom: "speaker", movedTo: 1))]
                ),
                on(.journalWritten(succeeded: false), [.log(.verdictsWaitForJournal(count: 1))]),
                on(.turnEnded, [.writeJournal([:])]),
                on(.journalWritten(succeeded: false), []),
                // Room again.
                on(
                    .timerFired(.journalRetry),
                    [.writeJournal(entry(policyVolume: quarter, movedFrom: "speaker", movedTo: 1))]
                ),
                on(.journalWritten(succeeded: true), [.writeTogether([[.move(music, toDevice: 1)]])]),
                on(.turnEnded, [.writeJournal(entry(movedFrom: "speaker", movedTo: 1))]),
                on(.journalWritten(succeeded: true), []),
            ]
        ),
        Transcript(
            name: "a stream that ends with a policy value in force has its saved restore entry mended",
            lines: [
                on(.sinkReported(0, name: "speaker", port: .speaker), [.tell(.portAvailable(.speaker))]),
                on(.streamReported(report(), processLine: [42]), [.readRestoreEntry(key)]),
                on(
                    .restoreEntryRead(
                        PulseStreamRestoreEntry(key: key, volume: seventy, muted: false, device: "speaker")
                    ),
                    [seen()]
                ),
                on(verdict(silent), [.writeTogether([[.volume(music, zero)]])]),
                on(
                    .streamRemoved(music),
                    [
                        .tell(.streamGone(music)),
                        .mendRestoreEntry(
                            music,
                            PulseStreamRestoreEntry(key: key, volume: seventy, muted: false, device: "speaker")
                        ),
                    ]
                ),
            ]
        ),
        Transcript(
            name: "a stream that ends with its user's values leaves the restore entry alone",
            lines: appears + [
                on(verdict(audible), []),
                on(.streamRemoved(music), [.tell(.streamGone(music))]),
            ]
        ),
        Transcript(
            name: "shutdown gives every value back, then empties the journal",
            journal: true,
            lines: appears + [
                on(verdict(silent), [.writeJournal(entry(policyVolume: zero))]),
                on(.journalWritten(succeeded: true), [.writeTogether([[.volume(music, zero)]])]),
                on(.shutdown, [.write(.volume(music, seventy)), .writeJournal([:])]),
                on(.journalWritten(succeeded: true), [.log(.gaveBack(writes: 1))]),
                on(.turnEnded, []),
            ]
        ),
        Transcript(
            name: "a default sink someone else picks among the devices there is the user's choice",
            lines: [
                on(.sinkReported(0, name: "speaker", port: .speaker), [.tell(.portAvailable(.speaker))]),
                on(.sinkReported(1, name: "headphones", port: .headphones), [.tell(.portAvailable(.headphones))]),
                on(.defaultSinkKnown("speaker"), []),
                on(.defaultSinkReported("headphones"), [.askSinkListed("speaker")]),
                on(.sinkListed(true), [.tell(.outputSelectedByUser(.headphones))]),
                // The server's own change: the old default is gone by the time it is asked about.
                on(.defaultSinkReported("speaker"), [.askSinkListed("headphones")]),
                on(.sinkListed(false), []),
                on(.defaultSinkReported("speaker"), []),
            ]
        ),
        Transcript(
            name: "a recorder of a sink's monitor is none of the policy's",
            lines: [
                on(.sourceReported(2, name: "speaker.monitor", port: nil, isMonitor: true), []),
                on(
                    .streamReported(
                        StreamReport(
                            origin: .sourceOutput(7),
                            volume: seventy,
                            muted: false,
                            device: 2,
                            corked: false,
                            properties: [:]
                        )
                    ),
                    []
                ),
            ]
        ),
    ]

    @Test(arguments: transcripts) func transcript(_ transcript: Transcript) {
        var machine = StreamMachine(fadeMilliseconds: transcript.fadeMilliseconds)
        if transcript.journal {
            #expect(machine.handle(.journalOpened(written: [:], mayHoldOlderEntries: false)) == [])
        }
        for (number, line) in transcript.lines.enumerated() {
            let actions = machine.handle(line.event)
            #expect(actions == line.actions, "line \(number + 1): \(line.event)")
            #expect(actions.dropLast().allSatisfy { !$0.isQuestion }, "a question is the last action of its list")
        }
    }

    /// A turn that silences one stream and moves another: the silence is sent and answered first, the move after
    /// it, whatever order the verdicts came in (the server reports no change before it has carried out every
    /// request it read at once, and a move is slow there).
    @Test func aMoveIsSentAfterTheTurnsOtherWrites() {
        let phone = StreamOrigin.sinkInput(5)
        var machine = StreamMachine(fadeMilliseconds: 0)
        for line in Self.appears { _ = machine.handle(line.event) }
        _ = machine.handle(.sinkReported(1, name: "headphones", port: .headphones))
        let phoneReport = StreamReport(
            origin: phone,
            volume: Self.seventy,
            muted: false,
            device: 0,
            corked: false,
            properties: ["media.role": "phone", "application.name": "dialer"]
        )
        _ = machine.handle(.streamReported(phoneReport, processLine: [43]))
        _ = machine.handle(.turnEnded)
        let actions = machine.handle(
            .verdictsHandedOver([.init(phone, Self.audibleOnHeadphones), .init(Self.music, Self.silent)])
        )
        let silence: StreamAction = .writeTogether([[.volume(Self.music, Self.zero)]])
        #expect(actions == [silence, .writeTogether([[.move(phone, toDevice: 1)]])])
    }

    /// A journal an earlier daemon's entries may still be in is written at the end of the first turn, even
    /// with nothing to journal.
    @Test func aJournalThatMayHoldOlderEntriesIsWrittenAtTheFirstEndOfTurn() {
        var machine = StreamMachine(fadeMilliseconds: 0)
        _ = machine.handle(.journalOpened(written: [:], mayHoldOlderEntries: true))
        #expect(machine.handle(.turnEnded) == [.writeJournal([:])])
        #expect(machine.handle(.journalWritten(succeeded: true)) == [])
        #expect(machine.handle(.turnEnded) == [])
    }
}
