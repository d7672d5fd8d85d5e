import AudioSessionDaemonCore
import AudioSessionEventLog
import AudioSessionPolicy
import Foundation
import Testing

@testable import AudioSessionDaemon

/// The event log's lines are written by hand (`JournalRecordJSON`): each is what `JSONEncoder` with `.sortedKeys`
/// writes of the record, byte for byte, for the records an engine's run gives and for one with every field set
/// and strings that need escaping; the rare records are left to the encoder.
@Suite struct JournalRecordJSONTests {
    @Test func everyEventOfARunIsWrittenAsTheEncoderWritesIt() throws {
        let records = Self.recordsOfARun()
        #expect(records.count == Self.events.count)
        #expect(records.contains { $0.notifications != nil } && records.contains { $0.states != nil })
        #expect(records.contains { $0.timersStarted != nil } && records.contains { $0.timersCancelled != nil })
        #expect(records.contains { $0.error != nil })
        for record in records { try Self.expectEncoderOutput(record) }
    }

    @Test func aRecordWithEveryFieldAndStringsToEscapeIsWrittenAsTheEncoderWritesIt() throws {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        var record = JournalRecord(kind: .event, time: 1_795_815_005.123_456_7)
        record.error = "isBusy \"quoted\" / \\"
        var event = JournalEvent(type: ascii)
        event.session = 1
        event.stream = 2
        event.direction = .input
        event.category = .playAndRecord
        event.mode = .voiceChat
        event.options = ["mixWithOthers", "duckOthers"]
        event.notifyOthers = true
        event.silentSwitch = .silent
        event.locked = false
        event.appState = .background
        event.port = .bluetoothHFP
        event.speakerOverride = .speaker
        event.timer = 9
        event.exempt = true
        var declaration = SessionDeclaration(
            appName: "radio ♪ \u{2028} 🎧",
            unawareStreamProperties: [
                "media.role": "music", "application.name": ascii, "Application.Name": "upper", "a": "", "é": "x",
                "application.process.id": "12",
            ]
        )
        declaration.callExemptByIdentity = false
        event.declaration = JournalDeclaration(name: "radio#2", declaration)
        record.event = event
        record.notifications = [
            JournalNotification(session: SessionID(1), .interruptionEnded(shouldResume: true)),
            JournalNotification(session: SessionID(2), .silenceSecondaryAudioHint(begins: false)),
        ]
        record.timersStarted = [JournalTimer(timer: 3, milliseconds: 250, startedAt: 1_795_815_005.5)]
        record.timersCancelled = [1, 2]
        try Self.expectEncoderOutput(record)
        // Whole times lose the encoder's `.0` too.
        try Self.expectEncoderOutput(JournalRecord(kind: .event, time: 1_795_815_005))
    }

    /// Integers are written digit by digit (`JSONText.integer`): zero, one digit and the next, the ends of `Int`.
    @Test func integersAtTheirEndsAreWrittenAsTheEncoderWritesThem() throws {
        var record = JournalRecord(kind: .event, time: 1)
        var event = JournalEvent(type: "timerFired")
        event.session = Int.max
        event.stream = Int.min
        event.timer = 0
        record.event = event
        record.timersCancelled = [Int.min, -1, 0, 9, 10, 99, 100, 1_000_000, Int.max]
        try Self.expectEncoderOutput(record)
    }

    @Test func theRareRecordsAreLeftToTheEncoder() {
        let engine = PolicyEngine()
        let recorder = JournalEventRecorder()
        #expect(JournalRecordJSON.encode(recorder.checkpoint(.start, engine: engine)) == nil)
        #expect(JournalRecordJSON.encode(recorder.checkpoint(.checkpoint, engine: engine)) == nil)
        var reload = JournalRecord(kind: .event, time: 1)
        reload.event = JournalEvent(.configurationChanged(.standard))
        #expect(JournalRecordJSON.encode(reload) == nil)
        #expect(JournalRecordJSON.encode(JournalRecord(kind: .event, time: .nan)) == nil)
    }

    static func expectEncoderOutput(_ record: JournalRecord) throws {
        let written = try #require(JournalRecordJSON.encode(record))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let expected = Array(try encoder.encode(record))
        #expect(
            written == expected,
            "\(String(decoding: written, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))"
        )
        #expect(try JSONDecoder().decode(JournalRecord.self, from: Data(written)) == record)
    }

    /// Sessions of every kind through calls, ducks, the switch, the lock, ports, timers, a refused request.
    static let events: [PolicyEvent] = {
        let (music, phone, nav, app) = (SessionID(1), SessionID(2), SessionID(3), SessionID(4))
        return [
            .sessionCreated(music, SessionDeclaration(appName: "music", category: .playback, isMediaPlayer: true)),
            .sessionCreated(phone, SessionDeclaration(appName: "phone", category: .playAndRecord, isCall: true)),
            .sessionCreated(
                nav,
                SessionDeclaration(appName: "nav", unawareStreamProperties: ["media.role": "navigation"])
            ),
            .sessionCreated(app, SessionDeclaration(appName: "app")),
            .activate(music),
            .streamStarted(StreamID(1), session: music, direction: .output),
            .setCategory(nav, .playback, mode: .spokenAudio, options: [.duckOthers, .mixWithOthers]),
            .activate(nav),
            // An unaware app's grace (U2): started when its stream ends, cancelled when one starts, then fired.
            .streamStarted(StreamID(3), session: nav, direction: .output),
            .streamRemoved(StreamID(3)),
            .streamStarted(StreamID(4), session: nav, direction: .output),
            .streamRemoved(StreamID(4)),
            .timerFired(TimerID(rawValue: 2)),
            .playerFound(music),
            .activate(phone),
            .streamStarted(StreamID(2), session: phone, direction: .input),
            .outputOverridden(phone, .speaker),
            .portConnected(.headphones),
            .outputSelected(.headphones),
            .portDisconnected(.headphones),
            .deactivate(phone, notifyOthers: true),
            .silentSwitch(.silent),
            .screenLocked(true),
            .appState(app, .background),
            .activate(app),
            .activate(SessionID(99)),
            .callExemptionDecided(phone, exempt: true),
            .streamPaused(StreamID(1)),
            .streamRemoved(StreamID(2)),
            .mediaServicesLost,
            .mediaServicesReset,
            .playerLost(music),
            .sessionRemoved(nav),
        ]
    }()

    static func recordsOfARun() -> [JournalRecord] {
        var engine = PolicyEngine()
        var recorder = JournalEventRecorder()
        var records: [JournalRecord] = []
        for (position, event) in events.enumerated() {
            let outcome = engine.handle(event)
            recorder.note(event, outcome, engine: engine, names: [:])
            for var record in recorder.take() {
                record.time = 1_795_815_005 + Double(position) / 7
                records.append(record)
            }
        }
        return records
    }
}
