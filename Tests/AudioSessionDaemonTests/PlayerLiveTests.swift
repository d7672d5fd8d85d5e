import Locking
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// `audiosessionctl play` and `record` (the client library's ALSA player and recorder) as real processes: a
/// real ALSA PCM through the ALSA `pulse` plug-in to a private PulseAudio, a real daemon, other apps as real
/// clients. Each test has its own server and daemon, and the player its own process (ALSA and libpulse find
/// the server through PULSE_SERVER, which is per process).
@Suite(.serialized, .timeLimit(.minutes(4))) struct PlayerLiveTests {
    static let tool = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/audiosessionctl"

    /// `audiosessionctl play` of the long tone, as a podcast app.
    static func play(_ live: LiveDaemon, _ arguments: [String] = []) throws -> Process {
        try live.server.spawn(
            tool,
            [
                "play", live.tone, "--socket", live.socket, "--device", "pulse", "--category", "playback", "--mode",
                "spokenAudio", "--app", "podcast",
            ] + arguments
        )
    }

    static func waitFor(_ text: String, from process: Process, on live: LiveDaemon, within seconds: Double = 15)
        async throws
    {
        try await eventually("the player prints '\(text)'", within: seconds) {
            live.server.output(of: process).contains(text)
        }
    }

    /// Waits until `process` has ended after a signal; if it has not within 15 s, fails with what it printed
    /// and what /proc shows of it (alive and blocked where, or gone without Foundation noticing).
    static func waitUntilEnds(_ process: Process, _ name: String, on live: LiveDaemon) async throws {
        do {
            try await eventually("\(name) ends") { !process.isRunning }
        } catch {
            let printed = live.server.output(of: process).split(separator: "\n").suffix(12).joined(separator: "\n")
            throw LiveTestError(
                "\(error); \(ChildProcess.whyStillRunning(process.processIdentifier)); its last lines:\n\(printed)"
            )
        }
    }

    /// A session that says hello, declares itself and activates, on a connection of its own.
    static func client(_ live: LiveDaemon, app: String, call: Bool = false, _ declaration: Command) throws
        -> ControlConnection
    {
        let connection = try live.client()
        _ = try connection.result(Request(.hello(app: app, call: call ? true : nil)))
        _ = try connection.result(Request(declaration))
        _ = try connection.result(Request(.activate))
        return connection
    }

    /// The player's playing stream on the server (the ALSA plug-in's sink-input). The one it opened to check
    /// the device, and closed at once, can linger corked for a moment on PipeWire: it is not this one.
    static func playerStream(_ live: LiveDaemon) async throws -> PulseSinkInput {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let found = try await live.observer.sinkInputs().first(where: {
                $0.properties["application.process.binary"] == "audiosessionctl" && !$0.corked
            }) {
                return found
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw LiveTestError("the player's ALSA stream did not appear on the server within 15 s")
    }

    /// The player's stream as the server has it now, running or not: its newest. Not one index for the whole
    /// test: after an underrun (a loaded machine starves the player) ALSA's pulse plugin replaces its stream with
    /// a new one, and the old one may still be listed a moment.
    static func playerStreamNow(_ live: LiveDaemon) async throws -> PulseSinkInput? {
        try await live.observer.sinkInputs().filter { $0.properties["application.process.binary"] == "audiosessionctl" }
            .max { $0.index < $1.index }
    }

    /// The loudness of what the speaker plays, from its monitor: root mean square of 0.4 s of 16-bit samples.
    /// The speaker's loudness, measured again until `condition` holds for it or 10 s have passed; the last one.
    static func speakerLoudness(_ live: LiveDaemon, until condition: (Double) -> Bool) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(10)
        var loudness = try await speakerLoudness(live)
        while !condition(loudness) && ContinuousClock.now < deadline {
            loudness = try await speakerLoudness(live)
        }
        return loudness
    }

    static func speakerLoudness(_ live: LiveDaemon) async throws -> Double {
        let path = live.server.directory + "/monitor-\(UUID().uuidString.prefix(6)).raw"
        let recorder = try live.server.spawn(
            "parecord",
            ["--raw", "--format=s16le", "--channels=1", "--rate=44100", "--device=speaker.monitor", path]
        )
        // parecord takes a moment to start on a busy machine: wait for 0.5 s of samples (2 bytes each), not a time.
        try await eventually("parecord has recorded half a second of the speaker", within: 10) {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) >= 44_100
        }
        recorder.terminate()
        try await eventually("parecord ends") { !recorder.isRunning }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.dropFirst(2205)
        guard !samples.isEmpty else { throw LiveTestError("the speaker's monitor gave no samples") }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// No sound server, switch on silent: a game sound (ambient) is silent from its first sample to its last,
    /// as the speaker's monitor shows, though nothing but the player itself can silence it.
    @Test func withNoSoundServerASilencedSoundIsSilentFromItsFirstSample() async throws {
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--no-sound-server", "--no-alsa"])
        defer { live.stop() }
        _ = try live.client().result(Request(.setSilentSwitch(.silent)))
        let path = live.server.directory + "/monitor-whole.raw"
        let monitor = try live.server.spawn(
            "parecord",
            ["--raw", "--format=s16le", "--channels=1", "--rate=44100", "--device=speaker.monitor", path]
        )
        try await eventually("parecord records", within: 10) {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 0
        }
        let game = try live.server.spawn(
            Self.tool,
            [
                "play", live.shortTone, "--socket", live.socket, "--device", "pulse", "--category", "ambient", "--app",
                "game",
            ]
        )
        try await eventually("the game sound ends", within: 10) { !game.isRunning }
        #expect(live.server.output(of: game).contains("verdict silent"), "\(live.server.output(of: game))")
        try await Task.sleep(for: .milliseconds(300))
        monitor.terminate()
        try await eventually("parecord ends") { !monitor.isRunning }
        let samples = try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes {
            Array($0.bindMemory(to: Int16.self))
        }
        let loudest = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(samples.count > 44_100 / 2, "the monitor recorded while the sound played: \(samples.count) samples")
        #expect(loudest < 100, "nothing of the tone is heard, not even its first period: peak \(loudest)")
    }

    /// No sound server for the daemon: the player applies the verdicts to its own samples, and what the
    /// speaker plays shows it; interruptions and the route are obeyed as always.
    @Test func withNoSoundServerThePlayerDucksItselfPausesForACallAndResumesAndPausesOnUnplug() async throws {
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--no-sound-server", "--no-alsa"])
        defer { live.stop() }
        let player = try Self.play(live)
        defer { player.terminate() }
        try await Self.waitFor("verdict audible", from: player, on: live)
        let full = try await Self.speakerLoudness(live)
        #expect(full > 1000, "the tone is heard: \(full)")

        let navigation = try Self.client(live, app: "navigation", .setCategory(.playback, mode: .voicePrompt, options: [.duckOthers]))
        // The player's buffered samples reach the monitor after its gain changed: measure until they show it
        // (half a second of samples each time), 10 s at most.
        try await Self.waitFor("gain 0.25", from: player, on: live)
        let ducked = try await Self.speakerLoudness(live, until: { (0.15...0.4).contains($0 / full) })
        #expect((0.15...0.4).contains(ducked / full), "ducked to a quarter: \(ducked) of \(full)")
        _ = try navigation.result(Request(.deactivate(notifyOthers: true)))
        try await Self.waitFor("gain 1.00", from: player, on: live)
        let restored = try await Self.speakerLoudness(live, until: { $0 / full > 0.8 })
        #expect(restored / full > 0.8, "back to full: \(restored) of \(full)")
        print(
            "player ducking measured at the speaker: ducked/full \(String(format: "%.3f", ducked / full)), restored/full \(String(format: "%.3f", restored / full))"
        )

        _ = try await Self.playerStream(live)
        let callStarted = ContinuousClock.now
        let call = try Self.client(live, app: "phone", call: true, .setCategory(.playAndRecord, mode: .voiceChat))
        try await eventually("the ALSA stream is paused on the server") {
            try await Self.playerStreamNow(live)?.corked == true
        }
        // A figure, not a bound: from the call's activation to the server seeing the player's stream paused
        // (polled every 20 ms), through daemon, client library, player and ALSA plug-in.
        print("player paused by a call within \(ContinuousClock.now - callStarted) of its activation")
        try await Self.waitFor("interrupted: interrupted by phone (A6)", from: player, on: live)
        _ = try call.result(Request(.deactivate(notifyOthers: true)))
        try await Self.waitFor("playing: the interruption ended and it may resume", from: player, on: live)
        try await eventually("the ALSA stream runs again") { try await Self.playerStreamNow(live)?.corked == false }

        let control = try live.client()
        _ = try control.result(Request(.connectPort(port: "headphones")))
        _ = try control.result(Request(.disconnectPort(port: "headphones")))
        try await Self.waitFor("pausedByRouteChange: headphones went away", from: player, on: live)
        player.terminate()
        try await Self.waitUntilEnds(player, "the player", on: live)
        #expect(player.terminationStatus == 130)
    }

    /// With a sound server (PulseAudio, or PipeWire's PulseAudio server under the same ALSA plug-in) the daemon
    /// ducks the player's stream on the server itself (the samples are left alone), and headphones pulled out
    /// of the server pause the player.
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func withASoundServerTheDaemonDucksThePlayersStreamAndUnpluggingPausesIt(_ kind: PrivateSoundServer.Kind)
        async throws
    {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try Self.play(live)
        defer { player.terminate() }
        _ = try await Self.playerStream(live)
        let headphones = try #require(try await live.sinkIndex(named: "headphones"))
        try await eventually("the player plays on the headphones (R1)") {
            try await Self.playerStreamNow(live)?.sinkIndex == headphones
        }
        let before = try #require(try await Self.playerStreamNow(live)?.volume)

        let navigation = try Self.client(live, app: "navigation", .setCategory(.playback, mode: .voicePrompt, options: [.duckOthers]))
        try await Self.playerVolume(on: live, becomes: before.scaled(by: 0.25), "the daemon ducks the player's stream")
        try await Self.waitFor("verdict ducked to 0.25", from: player, on: live)
        #expect(!live.server.output(of: player).contains("gain 0.25"), "the player leaves its samples alone")
        _ = try navigation.result(Request(.deactivate(notifyOthers: true)))
        try await Self.playerVolume(on: live, becomes: before, "the user's volume is back")

        let module = try #require(
            try live.server.pactl(["list", "short", "modules"]).split(separator: "\n")
                .first { $0.contains("sink_name=headphones") }?.split(separator: "\t").first.flatMap { UInt32($0) }
        )
        try live.server.unloadModule(module)
        try await Self.waitFor("pausedByRouteChange: headphones went away", from: player, on: live)
    }

    /// Waits for the player's stream to have `volume`; on a timeout the issue says what it had instead and what the daemon
    /// logged last, so a failure on a loaded machine has a cause.
    static func playerVolume(on live: LiveDaemon, becomes volume: PulseVolume, _ what: String) async throws {
        let seen = Locked<String>("nothing")
        do {
            try await eventually(what) {
                let current = try await playerStreamNow(live)?.volume
                seen.withLock { $0 = current.map { "\($0)" } ?? "no stream" }
                return current == volume
            }
        } catch {
            Issue.record(
                "expected \(volume), last seen \(seen.withLock { $0 }); daemon log:\n\(live.daemonLog().split(separator: "\n").suffix(30).joined(separator: "\n"))"
            )
            throw error
        }
    }

    @Test func theRecorderCapturesFromTheNullSourceForAsLongAsAsked() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        let file = live.server.directory + "/recorded.wav"
        let recorder = try live.server.spawn(
            Self.tool,
            [
                "record", file, "--socket", live.socket, "--device", "pulse", "--category", "record", "--duration", "1",
                "--format", "s16le:1:48000",
            ]
        )
        try await eventually("the recording ends by itself", within: 10) { !recorder.isRunning }
        let output = live.server.output(of: recorder)
        #expect(recorder.terminationStatus == 0, "\(output)")
        #expect(output.contains("verdict capturing from builtInMic"), "\(output)")
        #expect(output.contains("finished: recorded its full length"), "\(output)")
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(String(decoding: data.prefix(4), as: UTF8.self) == "RIFF")
        #expect(
            abs((data.count - 44) / 2 - 48_000) <= 4_800,
            "one second of 16-bit mono at 48 kHz: \(data.count) bytes"
        )
    }

    /// Bad input, each a clear error naming what is wrong, before the daemon is even asked.
    @Test func badFilesFormatsAndDevicesAreClearErrors() async throws {
        // Ten programs run to their end: on a thread of its own, not one of the test pool's few.
        try await onThread {
            let directory = FileManager.default.temporaryDirectory.path + "/player-bad-\(UUID().uuidString.prefix(6))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let text = directory + "/notes.wav"
            try "these are notes, not sound\n".write(toFile: text, atomically: true, encoding: .utf8)
            let tone = directory + "/tone.wav"
            try PrivateSoundServer.writeTone(to: tone, seconds: 0.2)
            var mp3 = try Data(contentsOf: URL(fileURLWithPath: tone))
            mp3[20] = 0x55
            let mp3Path = directory + "/mp3.wav"
            try mp3.write(to: URL(fileURLWithPath: mp3Path))

            let cases: [(arguments: [String], says: [String])] = [
                (["play", directory + "/missing.wav"], ["missing.wav"]),
                (["play", directory], [directory]),
                (["play", text], ["notes.wav", "not"]),
                (["play", mp3Path], ["0x0055"]),
                (["play", tone, "--raw-format", "s16le:two:48000"], ["two"]),
                (["play", tone, "--device", "nosuchdevice"], ["nosuchdevice"]),
                (["record", directory + "/out.wav", "--format", "s12le:1:48000"], ["s12le"]),
            ]
            for (arguments, says) in cases {
                let result = try Self.run(
                    arguments + [
                        "--category", arguments[0] == "play" ? "playback" : "record", "--socket",
                        directory + "/no-daemon",
                    ]
                )
                #expect(result.status == 1, "\(arguments): \(result.errors)")
                for word in says {
                    #expect(result.errors.contains(word), "\(arguments) should name \(word): \(result.errors)")
                }
                #expect(
                    !result.errors.contains("daemon"),
                    "\(arguments): the file or device is reported first: \(result.errors)"
                )
            }
            let noInput = try Self.run([
                "record", directory + "/out.wav", "--category", "playback", "--socket", directory + "/no-daemon",
            ])
            #expect(noInput.status != 0 && noInput.errors.contains("has no input"), "\(noInput.errors)")
            let noTime = try Self.run(["record", directory + "/out.wav", "--category", "record", "--duration", "0"])
            #expect(noTime.status != 0 && noTime.errors.contains("--duration"), "\(noTime.errors)")
        }
    }

    static func run(_ arguments: [String]) throws -> CtlResult { try CtlResult.running(tool, arguments) }
}
