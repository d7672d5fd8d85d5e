import AudioSessionDaemonCore
import AudioSessionEventLog
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario
import AudioSessionTestSupport
import Foundation
import Logging
import PulseBackend
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon
@testable import AudioSessionEventLog

/// The event log and `audiosessionctl journal export`: what the daemon decided replays, as a scenario, to the
/// same decisions; a replay that differs fails.
@Suite(.timeLimit(.minutes(4))) struct JournalTests {
    /// The export's and `watch`'s times, written without Foundation's formatters (the daemon links only its
    /// essentials).
    @Test func theExportsTimesAreUTCWithMillisecondsCutNotRounded() {
        // 2026-11-27T21:30:05.1239Z
        let time = 1_795_815_005.1239
        #expect(UTCTime.iso8601(time) == "2026-11-27T21:30:05.123Z")
        #expect(UTCTime.clock(time) == "21:30:05.123Z")
        #expect(UTCTime.clock(0.999) == "00:00:00.999Z")
        #expect(UTCTime.clock(86_399.5) == "23:59:59.500Z")
    }

    @Test func aDaemonsEventsExportToAScenarioThatReplaysAndATamperedOneFails() throws {
        var driver = CoreDriver()
        driver.drive()
        let export = try JournalExport.scenario(from: driver.records)
        let scenario = try ScenarioLoader.parse(yaml: export.yaml, file: "export.yaml")
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed, "\(result.failures.map(\.description).joined(separator: "\n"))\n\(export.yaml)")
        #expect(export.events > 40)
        let waits = scenario.steps.filter { if case .wait = $0.action { true } else { false } }
        #expect(!waits.isEmpty, "grace timers are fired by waits")
        print(
            "exported \(export.events) events into \(scenario.steps.count) steps (\(waits.count) waits); limits: \(export.warnings)"
        )

        // Each expectation counts: one state changed, or one notification's shouldResume, and the replay fails.
        for (original, tampered) in [
            ("state: interrupted", "state: active"),
            ("interruption: ended, shouldResume: true", "interruption: ended, shouldResume: false"),
        ] {
            let range = try #require(export.yaml.range(of: original), "the export has \(original)")
            let yaml = export.yaml.replacingCharacters(in: range, with: tampered)
            let failing = ScenarioRunner.run(try ScenarioLoader.parse(yaml: yaml, file: "tampered.yaml"))
            #expect(!failing.passed, "changing '\(original)' to '\(tampered)' must fail the replay")
            print("tampered (\(tampered)): \(failing.failures.first.map { "\($0)" } ?? "passed")")
        }
    }

    @Test func theExportStartsAtTheLastRunAndChecksOnlyFromSince() throws {
        var first = CoreDriver()
        first.drive()
        var second = CoreDriver(startingAt: first.clock + 60)
        second.drive()
        let records = first.records + second.records
        let whole = try JournalExport.scenario(from: records)
        #expect(whole.events == second.records.count - 1, "the last run only")
        let since = second.records[second.records.count / 2].time
        let part = try JournalExport.scenario(from: records, since: since)
        #expect(part.checkedEvents < part.events)
        let result = ScenarioRunner.run(try ScenarioLoader.parse(yaml: part.yaml, file: "since.yaml"))
        #expect(result.passed, "\(result.failures.map(\.description).joined(separator: "\n"))")
    }

    @Test func theEventLogIsBoundedAndCutLinesAreReportedAndSkipped() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/journal-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = try #require(try StateDirectory.open(directory, logger: Logger(label: "test")))
        var keeper = StateKeeper(
            directory: state,
            settings: StateSettings(),
            eventLogLimit: 20,
            logger: Logger(label: "test")
        )
        var driver = CoreDriver()
        keeper.begin(&driver.core)
        for number in 0..<40 {
            _ = driver.core.handle(
                .sound(number.isMultiple(of: 2) ? .portAvailable(.headphones) : .portGone(.headphones))
            )
            keeper.after(&driver.core)
        }
        keeper.finish()
        var (records, problems) = JournalExport.records(inStateDirectory: directory)
        #expect(problems.isEmpty)
        #expect((10...20).contains(records.filter { $0.kind == .event }.count), "between half the limit and the limit")
        #expect(records.contains { $0.kind == .checkpoint })
        #expect(try JournalExport.scenario(from: records).events == records.filter { $0.kind == .event }.count)
        // A line cut short by a crash.
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/events.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"kind\":\"event\",\"ti".utf8))
        try handle.close()
        (records, problems) = JournalExport.records(inStateDirectory: directory)
        #expect(problems.count == 1 && problems[0].contains("events.jsonl:"), "\(problems)")
        withExtendedLifetime(state) {}
    }

    @Test func theJournalTakesBackOnlyWhatThePolicyLeft() {
        let entry = JournalStreamEntry(
            kind: .sinkInput,
            index: 3,
            application: "radio",
            processID: "42",
            role: "music",
            userVolume: [40000, 40000],
            userMuted: false,
            policyVolume: [10000, 10000],
            policyMuted: false
        )
        #expect(entry.isPolicyVolume(PulseVolume(channels: [10000, 10000])), "the ducked volume")
        #expect(entry.isPolicyVolume(PulseVolume(channels: [25000, 25000])), "a fade step")
        #expect(!entry.isPolicyVolume(PulseVolume(channels: [50000, 50000])), "the user turned it up")
        #expect(!entry.isPolicyVolume(PulseVolume(channels: [5000, 5000])), "the user turned it down")
        #expect(!entry.isPolicyVolume(PulseVolume(channels: [10000])), "another channel map")
        #expect(
            entry.isSameStream(["application.name": "radio", "application.process.id": "42", "media.role": "music"])
        )
        #expect(
            !entry.isSameStream(["application.name": "radio", "application.process.id": "43", "media.role": "music"])
        )
    }

    /// The policy's silence is a volume of 0: a journal entry of it spans 0 to the user's volume, so a stream
    /// left at 0 (or at a fade step, or at the user's volume) is given the user's volume back after kill -9;
    /// one the user set above it keeps the user's. Its mute flag is the user's: the entry does not mute.
    @Test func theJournalTakesBackASilenceOfThePolicys() {
        let entry = JournalStreamEntry(
            kind: .sinkInput,
            index: 3,
            userVolume: [40000, 40000],
            userMuted: true,
            policyVolume: [0, 0],
            policyMuted: false
        )
        #expect(entry.isPolicyVolume(PulseVolume(channels: [0, 0])), "the silence")
        #expect(entry.isPolicyVolume(PulseVolume(channels: [40000, 40000])), "the user's volume")
        #expect(!entry.isPolicyVolume(PulseVolume(channels: [50000, 50000])), "the user turned it up")
    }

    /// A live daemon on PulseAudio: music, a call that interrupts it and ends, the grace and the music back;
    /// stopped; its event log exported with the tool and replayed with the tool.
    @Test func aLiveDaemonsJournalExportReplaysWithTheTool() async throws {
        let rig = try await CrashRig(.pulseaudio)
        defer { rig.stop() }
        try await rig.startDaemon()
        let short = rig.server.directory + "/short.wav"
        try PrivateSoundServer.writeTone(to: short, seconds: 0.6)
        let music = try rig.play(app: "radio", role: "music")
        defer { music.terminate() }
        let stream = try await rig.stream(app: "radio")
        let call = try rig.server.spawn(
            "paplay",
            ["--property=application.name=phone", short],
            environment: ["PULSE_PROP": "media.role=phone"]
        )
        try await eventually("the call silences the music") {
            try await rig.observer.sinkInput(stream.index)?.isSilenced == true
        }
        _ = call.waitForExit()
        try await eventually("the music is back at its volume after the call and its grace", within: 8) {
            let now = try await rig.observer.sinkInput(stream.index)
            return now?.volume == stream.volume && now?.muted == false
        }
        _ = try rig.control().result(Request(.setSilentSwitch(.silent)))
        rig.daemon?.stop()

        let file = rig.server.directory + "/exported.yaml"
        var output = ""
        var errors = ""
        let status = AudioSessionCtl.execute(
            ["journal", "export", "--state-dir", rig.stateDirectory, "-o", file],
            output: &output,
            errors: &errors
        )
        #expect(status == 0, "\(errors)")
        let yaml = try String(contentsOfFile: file, encoding: .utf8)
        #expect(yaml.contains("interruption: ended, shouldResume: true"), "\(yaml)")
        #expect(yaml.contains("- wait: "), "the grace is waited for")
        var replayed = ""
        #expect(try Replay.run(paths: [file], timeline: false, explain: false, to: &replayed), "\(replayed)\n\(yaml)")
        print(
            "live export: \(errors.trimmingCharacters(in: .whitespacesAndNewlines)); replay: \(replayed.split(separator: "\n").last ?? "")"
        )

        let tampered = rig.server.directory + "/tampered.yaml"
        try yaml.replacingOccurrences(
            of: "interruption: ended, shouldResume: true",
            with: "interruption: ended, shouldResume: false"
        )
        .write(toFile: tampered, atomically: true, encoding: .utf8)
        var failed = ""
        #expect(try !Replay.run(paths: [tampered], timeline: false, explain: false, to: &failed))
        #expect(failed.contains("shouldResume"), "\(failed)")
    }
}

/// Drives a `DaemonCore` as the daemon would, on a clock of its own: inputs at chosen times, the engine's timers
/// fired when they fall due (a few milliseconds late, as real ones are), every record stamped.
struct CoreDriver {
    var core: DaemonCore
    var clock: Double
    var records: [JournalRecord] = []
    private var timers: [TimerID: Double] = [:]
    static let owner: UInt32 = 1000

    init(startingAt start: Double = 1_800_000_000, config: PolicyConfig = .standard) {
        core = DaemonCore(engine: PolicyEngine(config: config, outputs: [], inputs: []), controlUserID: Self.owner)
        core.recorder.isOn = true
        clock = start
        var begin = core.recorder.checkpoint(.start, engine: core.engine)
        begin.time = clock
        records.append(begin)
    }

    /// `input` after `milliseconds`, firing the timers that fall due meanwhile.
    mutating func input(_ input: DaemonInput, after milliseconds: Double = 20) {
        advance(milliseconds)
        handle(input)
    }

    mutating func advance(_ milliseconds: Double) {
        let end = clock + milliseconds / 1000
        while let (timer, at) = timers.filter({ $0.value <= end }).min(by: { ($0.value, $0.key) < ($1.value, $1.key) })
        {
            timers[timer] = nil
            clock = max(clock, at + 0.003)
            handle(.timerFired(timer))
        }
        clock = max(clock, end)
    }

    private mutating func handle(_ input: DaemonInput) {
        for effect in core.handle(input) {
            switch effect {
            case .startTimer(let timer, let milliseconds): timers[timer] = clock + Double(milliseconds) / 1000
            case .cancelTimer(let timer): timers[timer] = nil
            default: break
            }
        }
        for var record in core.recorder.take() {
            record.time = clock
            records.append(record)
        }
    }

    static func stream(_ index: UInt32, role: String?, app: String, running: Bool = true, input: Bool = false)
        -> SoundFact
    {
        var properties = ["application.name": app]
        properties["media.role"] = role
        return .streamSeen(
            SoundStream(
                origin: input ? .sourceOutput(index) : .sinkInput(index),
                direction: input ? .input : .output,
                properties: properties,
                isRunning: running
            )
        )
    }

    static func request(_ command: Command) -> Request { Request(id: .number(1), command) }

    /// A day of the daemon's in a few seconds: devices, unaware music and a call with its grace, an app that
    /// ducks, the switch, a second stream of one app, a recorder, headphones unplugged, a client that dies
    /// active, and the sound server lost and back.
    mutating func drive() {
        let maps = ClientID(rawValue: 1)
        let game = ClientID(rawValue: 2)
        let control = ClientID(rawValue: 3)
        input(.sound(.serverConnected))
        input(.sound(.portAvailable(.speaker)), after: 1)
        input(.sound(.portAvailable(.headphones)), after: 1)
        input(.sound(.portAvailable(.builtInMic)), after: 1)
        input(.sound(.inventoryTaken), after: 1)
        input(.sound(Self.stream(1, role: "music", app: "radio")), after: 300)
        // An app that ducks others.
        input(.clientConnected(maps, ClientPeer(processID: 10, userID: Self.owner, processName: "maps")))
        input(.request(maps, Self.request(.hello(app: "maps"))))
        input(
            .request(
                maps,
                Self.request(.setCategory(.playback, options: [.duckOthers]))
            )
        )
        input(.request(maps, Self.request(.activate)), after: 500)
        input(.request(maps, Self.request(.deactivate(notifyOthers: true))), after: 1500)
        // The switch, from a control client.
        input(.clientConnected(control, ClientPeer(processID: 30, userID: Self.owner, processName: "audiosessionctl")))
        input(.request(control, Self.request(.setSilentSwitch(.silent))), after: 200)
        input(.request(control, Self.request(.setSilentSwitch(.ring))), after: 200)
        // A call: music interrupted; the call's stream ends, its grace runs out, the music resumes (U3).
        input(.sound(Self.stream(2, role: "phone", app: "dialer")), after: 700)
        input(.sound(.streamGone(.sinkInput(2))), after: 3000)
        advance(1000)
        // A second stream of the radio; the first one goes, the second plays on.
        input(.sound(Self.stream(3, role: "music", app: "radio")), after: 400)
        input(.sound(.streamGone(.sinkInput(1))), after: 400)
        // A recorder beside the music; a pause shorter than the grace and one longer.
        input(.sound(Self.stream(4, role: nil, app: "recorder", input: true)), after: 300)
        input(.sound(Self.stream(4, role: nil, app: "recorder", running: false, input: true)), after: 300)
        input(.sound(Self.stream(4, role: nil, app: "recorder", input: true)), after: 200)
        input(.sound(Self.stream(4, role: nil, app: "recorder", running: false, input: true)), after: 300)
        advance(900)
        // Headphones unplugged: the music stops (R4), and is started again on the speaker.
        input(.sound(.portGone(.headphones)), after: 500)
        input(.sound(Self.stream(3, role: "music", app: "radio", running: false)), after: 100)
        input(.sound(Self.stream(3, role: "music", app: "radio")), after: 400)
        input(.sound(.portAvailable(.headphones)), after: 800)
        input(.request(control, Self.request(.selectOutput(port: "speaker"))), after: 300)
        // A game that dies while active: the session ends.
        input(.clientConnected(game, ClientPeer(processID: 20, userID: Self.owner, processName: "game")))
        input(.request(game, Self.request(.setCategory(.soloAmbient))))
        input(.request(game, Self.request(.startStream(1, direction: .output))), after: 100)
        input(.request(game, Self.request(.activate)), after: 100)
        input(.clientDisconnected(game), after: 600)
        // A request the engine refuses.
        input(.request(maps, Self.request(.overrideOutput(port: "speaker"))), after: 100)
        // The sound server lost and back.
        input(.sound(.serverLost(reason: "test")), after: 1000)
        input(.sound(.serverConnected), after: 400)
        input(.sound(.portAvailable(.speaker)), after: 1)
        input(.sound(.portAvailable(.headphones)), after: 1)
        input(.sound(.portAvailable(.builtInMic)), after: 1)
        input(.sound(.inventoryTaken), after: 1)
        input(.sound(Self.stream(5, role: "music", app: "radio")), after: 200)
        advance(2000)
    }
}
