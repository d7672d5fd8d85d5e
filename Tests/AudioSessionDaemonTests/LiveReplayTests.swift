import AudioSessionPolicy
import AudioSessionScenario
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// `audiosessionctl replay --live`: every scenario that can run live, replayed against a real daemon on a private
/// PulseAudio and a private PipeWire with real streams, each `expect` checked against what the daemon and the
/// server report. Each file gets a fresh server and daemon, so no file sees another's leftovers (WirePlumber, for
/// one, remembers each app's stream volume and mute). The replays themselves are in the suites below, one per
/// server and kind of file: each runs its files one at a time, and the four run beside each other (one after
/// another they were the longest part of `make test`, 8 minutes of its 12 on this machine, mostly waiting).
@Suite(.timeLimit(.minutes(4))) struct LiveReplayTests {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Scenarios").path

    static let allFiles: [String] = ((try? ScenarioLoader.scenarioFiles(in: [directory])) ?? [])
        .map { URL(filePath: $0).lastPathComponent }

    /// The files that can run live; `skipsAreReported` checks what becomes of the others. Those with players
    /// (real mpv, POLICY section 6b) apart.
    static let liveFiles = allFiles.filter { LiveReplay.outcomeWithoutDaemon(file: path($0)) == nil }
        .filter { !$0.hasPrefix("p-") }
    static let playerFiles = allFiles.filter { LiveReplay.outcomeWithoutDaemon(file: path($0)) == nil }
        .filter { $0.hasPrefix("p-") }

    /// Files that run live up to a step a real player cannot take, and are skipped there with this reason.
    static let skippedAtAStep: [String: String] = [
        "p-player-given-up-on-is-left-as-the-user-sets-it.yaml": "line 10: " + stoppedPress,
        "p-player-that-does-not-answer-an-unplug-stays-silent.yaml": "line 18: " + stoppedPress,
        "p-user-pause-outlasting-the-grace-ends-the-session-during-the-call.yaml": "line 13: " + pausedPress,
        "p-user-pauses-during-the-call-and-the-daemon-leaves-it-paused.yaml": "line 9: " + pausedPress,
    ]
    static let stoppedPress = "pause: radio, a player that does not answer (answers: false): live it is a stopped mpv, "
        + "which takes the user's press no more than the daemon's"
    static let pausedPress = "pause: radio while the daemon holds it paused: a real player's pause then changes "
        + "nothing the daemon can see"

    /// Where the daemon with a real player does not do what the engine does; each is a finding to fix in the
    /// daemon, not a check to loosen. None is known now.
    static let knownDivergences: [String: Comment] = [:]

    static func path(_ file: String) -> String { directory + "/" + file }

    /// A player file live (real mpv), a known divergence marked as such.
    static func replayPlayers(_ file: String, on kind: PrivateSoundServer.Kind) async throws {
        guard let divergence = Self.knownDivergences[file] else { return try await replay(file, on: kind) }
        await withKnownIssue(divergence, isIntermittent: true) { try await replay(file, on: kind) }
    }

    /// A scenario with `mediaServices:` (a player's too) is skipped with its reason, counted apart, and fails
    /// nothing.
    @Test func skipsAreReported() async throws {
        let live = try await ReplayDaemon(.pulseaudio)
        defer { live.stop() }
        let media = "m-lost-and-reset-notify-every-session.yaml"
        let player = "p-losing-the-sound-server-pauses-no-player.yaml"
        var output = ""
        let passed = try await LiveReplay.run(
            paths: [
                Self.path(media), Self.path(player),
                Self.path("c-new-session-is-inactive-solo-ambient-with-no-options.yaml"),
            ],
            options: live.options,
            timeline: false,
            explain: false,
            to: &output
        )
        #expect(passed, "\(output)")
        #expect(output.contains("skip \(Self.path(media)): needs to kill the sound server (mediaServices steps)"))
        #expect(output.contains("skip \(Self.path(player)): needs to kill the sound server (mediaServices steps)"))
        #expect(output.hasSuffix("1 passed, 0 failed, 2 skipped\n"), "\(output)")
    }

    @Test func whatCannotRunLiveIsFoundWithoutADaemon() throws {
        let skipped = Self.allFiles.filter {
            if case .skipped = LiveReplay.outcomeWithoutDaemon(file: Self.path($0)) { return true }
            return false
        }
        #expect(
            skipped.sorted() == [
                "a-screen-reader-is-exempt-during-a-call.yaml", "m-lost-and-reset-notify-every-session.yaml",
                "m-nothing-activates-while-media-services-are-lost.yaml",
                "m-reset-ends-interruptions-without-ended.yaml",
                "o-recording-silences-other-output-but-not-a-call.yaml",
                "p-late-answer-within-the-player-timeout-counts.yaml",
                "p-losing-the-sound-server-pauses-no-player.yaml",
                "u-recording-stream-keeps-an-unaware-call-alive.yaml",
            ]
        )
        let reader = try ScenarioLoader.load(path: Self.path("a-screen-reader-is-exempt-during-a-call.yaml"))
        #expect(
            LiveReplayGate.reasonToSkip(reader, daemonConfig: reader.config)
                == "exempts screenreader from A2 by name: the daemon exempts an app of its socket only by the program it runs"
        )
        let config = try ScenarioLoader.load(path: Self.path("u-recording-stream-keeps-an-unaware-call-alive.yaml"))
        #expect(LiveReplayGate.reasonToSkip(config, daemonConfig: .standard)?.contains("graceMs: 1000") == true)
        // The player timeout is scaled with the grace (--time-scale): 250 ms here is 2 s in the daemon.
        let late = try ScenarioLoader.load(path: Self.path("p-late-answer-within-the-player-timeout-counts.yaml"))
        var scaled = PolicyConfig.standard
        scaled.playerTimeoutMs *= 8
        scaled.graceMs *= 8
        #expect(LiveReplayGate.reasonToSkip(late, daemonConfig: scaled, timeScale: 8)?.contains("playerTimeoutMs: 1000") == true)
        let plain = try ScenarioLoader.load(path: Self.path("p-call-pauses-the-player-and-plays-it-after.yaml"))
        #expect(LiveReplayGate.reasonToSkip(plain, daemonConfig: scaled, timeScale: 8) == nil)
    }

    @Test func devicesArePluggedInAnOrderThatGivesTheDaemonTheListedPorts() {
        typealias Lists = LivePorts.Lists
        let headset = Lists(outputs: [.speaker, .headset], inputs: [.builtInMic, .headsetMic])
        let order = LivePorts.plugOrder(for: headset)
        #expect(
            order?.map(\.description) == ["sink speaker", "sink headset", "source builtInMic", "source headsetMic"]
        )
        // A Bluetooth hands-free device is an output and an input: its source must come last for both lists.
        let bluetooth = Lists(outputs: [.speaker, .bluetoothHFP], inputs: [.builtInMic, .bluetoothHFP])
        var lists = Lists()
        for device in LivePorts.plugOrder(for: bluetooth) ?? [] { lists.connect(device.port) }
        #expect(lists == bluetooth)
        #expect(LivePorts.plugOrder(for: Lists(outputs: [.speaker, .headset], inputs: [.builtInMic])) == nil)
        #expect(LivePorts.plugOrder(for: Lists(outputs: [.speaker], inputs: [.usbAudio])) == nil)
        #expect(LiveSoundServer.port(ofDeviceNamed: "bluetoothHFP-out", isSink: true) == .bluetoothHFP)
        #expect(LiveSoundServer.port(ofDeviceNamed: "headphones-again2", isSink: true) == .headphones)
        #expect(LiveSoundServer.port(ofDeviceNamed: "speaker.monitor", isSink: false) == nil)
        #expect(LiveSoundServer.port(ofDeviceNamed: LiveSoundServer.holdName, isSink: true) == nil)
    }

    static func replay(_ file: String, on kind: PrivateSoundServer.Kind) async throws {
        let live = try await ReplayDaemon(kind)
        defer { live.stop() }
        let outcome = try await LiveReplay.replay(file: Self.path(file), options: live.options)
        let skipReason = Self.skippedAtAStep[file]
        let report: String? =
            switch outcome {
            case .skipped(let reason) where reason == skipReason: nil
            case _ where skipReason != nil: "expected to be skipped (\(skipReason!)), but: \(outcome)"
            case .replayed(let result) where result.passed: nil
            case .replayed(let result): result.failures.map(\.description).joined(separator: "\n")
            case .skipped(let reason): "skipped: \(reason)"
            case .unreadable(let error): error
            }
        guard let report else { return }
        let comment = Comment(rawValue: "\(file) on \(kind):\n\(report)\n\(live.logTail())")
        Issue.record(comment)
    }
}

/// A daemon on a private sound server, reached as `replay --live` reaches one: its socket and server address.
final class ReplayDaemon: @unchecked Sendable {
    let server: PrivateSoundServer
    /// The session bus the daemon follows players on (`--session-bus`): the replay's mpv players go there.
    let bus: PrivateSessionBus
    let socket: String
    let process: Process

    init(_ kind: PrivateSoundServer.Kind) async throws {
        guard FileManager.default.isExecutableFile(atPath: LiveDaemon.daemonPath) else {
            throw LiveTestError(
                "no daemon binary at \(LiveDaemon.daemonPath): build every product first (`swift build`)"
            )
        }
        bus = try await PrivateSessionBus.start()
        do {
            server = try await PrivateSoundServer.start(kind)
        } catch {
            bus.stop()
            throw error
        }
        socket = server.directory + "/control"
        // The daemon's timers are `timeScale` times the scenarios' (replay --live --time-scale): the checks just
        // inside and just past the grace keep a margin of a second or more on a loaded machine, and a real mpv
        // answers the daemon's pause within the player timeout.
        let config = server.directory + "/policy.yaml"
        let standard = PolicyConfig.standard
        do {
            try "graceMs: \(standard.graceMs * Self.timeScale)\nplayerTimeoutMs: \(standard.playerTimeoutMs * Self.timeScale)\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            // A state directory of its own: the daemon keeps the switch, the lock and the output pick there.
            process = try server.spawn(
                LiveDaemon.daemonPath,
                [
                    "--socket", socket, "--pulse-server", server.pulseServer, "--state-dir", server.directory + "/state",
                    "--config", config, "--session-bus", bus.address,
                ]
            )
        } catch {
            server.stop()
            bus.stop()
            throw error
        }
        let socket = socket
        do {
            try await eventually("the daemon listens on \(socket)") { (try? ControlConnection(path: socket, readTimeout: .seconds(60))) != nil }
            // The socket is up before the sound server's devices are known: a request that names an output
            // (`selectOutput`) would find none on a loaded machine.
            try await eventually("the daemon has the sound server's outputs") {
                try ControlConnection(path: socket, readTimeout: .seconds(60)).status().outputs.contains(.speaker)
            }
        } catch {
            await stopProcess(process)
            server.stop()
            bus.stop()
            throw error
        }
    }

    static let timeScale = 8

    var options: LiveReplayOptions {
        var config = PolicyConfig.standard
        config.graceMs *= Self.timeScale
        config.playerTimeoutMs *= Self.timeScale
        // The limit is a safety net: a check that holds returns at once, so only a failing one waits it out. A
        // loaded machine (a build beside the tests) has stalled the server for more than the CLI's 2 s.
        return LiveReplayOptions(
            socket: socket,
            pulseServer: server.pulseServer,
            daemonConfig: config,
            expectTimeout: .seconds(10),
            timeScale: Self.timeScale,
            sessionBus: bus.address
        )
    }

    /// The end of the daemon's log, for a failure's report.
    func logTail(lines: Int = 40) -> String {
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: server.directory)) ?? []
        guard let log = logs.first(where: { $0.hasSuffix("-audiosessiond.log") }),
            let text = try? String(contentsOfFile: server.directory + "/" + log, encoding: .utf8)
        else { return "" }
        return "daemon log (last \(lines) lines):\n" + text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    func stop() {
        process.stop()
        server.stop()
        bus.stop()
    }
}

/// The files without players, live on a private PulseAudio, one at a time.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveReplayOnPulseAudioTests {
    @Test(arguments: LiveReplayTests.liveFiles)
    func replaysLiveOnPulseAudio(_ file: String) async throws {
        try await LiveReplayTests.replay(file, on: .pulseaudio)
    }
}

/// The files without players, live on a private PipeWire (pipewire-pulse), one at a time.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveReplayOnPipeWireTests {
    @Test(arguments: LiveReplayTests.liveFiles)
    func replaysLiveOnPipeWire(_ file: String) async throws {
        try await LiveReplayTests.replay(file, on: .pipewire)
    }
}

/// The files with players (real mpv, POLICY section 6b) on a private PulseAudio, one at a time.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveReplayPlayersOnPulseAudioTests {
    @Test(arguments: LiveReplayTests.playerFiles)
    func replaysPlayersLiveOnPulseAudio(_ file: String) async throws {
        try await LiveReplayTests.replayPlayers(file, on: .pulseaudio)
    }
}

/// The files with players on a private PipeWire, one at a time.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveReplayPlayersOnPipeWireTests {
    @Test(arguments: LiveReplayTests.playerFiles)
    func replaysPlayersLiveOnPipeWire(_ file: String) async throws {
        try await LiveReplayTests.replayPlayers(file, on: .pipewire)
    }
}
