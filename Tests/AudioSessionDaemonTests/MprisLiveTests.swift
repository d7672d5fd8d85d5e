import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// Section 6b live: a real mpv with the mpv-mpris plug-in playing into a private sound server, on a private
/// session bus, a real daemon on both, `playerctl` as the user's media keys and `paplay` as an unaware call.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MprisLiveTests {
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aCallPausesThePlayerAndItPlaysAgainAfter(_ kind: PrivateSoundServer.Kind) async throws {
        let rig = try await MprisRig(kind)
        defer { rig.stop() }
        let music = try await rig.playingPlayer()
        let call = try rig.live.play(role: "phone")
        defer { call.stop() }
        try await rig.waitForStatus("Paused")
        try await eventually("mpv's stream is corked (it paused itself)") { try await rig.live.current(music.index)?.corked == true }
        call.stop()
        try await rig.waitForStatus("Playing")
        try await eventually("mpv's stream plays, not silenced") {
            guard let stream = try await rig.live.current(music.index) else { return false }
            return !stream.corked && !stream.isSilenced
        }
    }

    @Test func theUserPlayingDuringTheCallIsObeyedAndLeftAloneAfter() async throws {
        let rig = try await MprisRig(.pulseaudio)
        defer { rig.stop() }
        let music = try await rig.playingPlayer()
        let call = try rig.live.play(role: "phone")
        defer { call.stop() }
        try await rig.waitForStatus("Paused")
        try await rig.waitUntilTheDaemonSees(music, running: false)
        try await rig.playerctl(["play"])
        try await rig.waitForStatus("Playing")
        try await eventually("mpv's stream runs, silenced during the call (P5)") {
            guard let stream = try await rig.live.current(music.index) else { return false }
            return !stream.corked && stream.isSilenced
        }
        call.stop()
        try await rig.waitUntilTheCallIsOver()
        try await eventually("mpv is heard after the call (U3)") { try await rig.live.current(music.index)?.isSilenced == false }
        #expect(try await rig.playerctl(["status"]) == "Playing")
        #expect(!rig.live.daemonLog().contains("Play sent to"), "the daemon leaves the player as the user set it (P3)")
    }

    /// A pause pressed on a player the daemon has paused changes nothing the daemon can see (neither the stream
    /// nor `PlaybackStatus`), so the user's pause here is one after a play (docs/POLICY-NOTES.md).
    @Test func theUserPausingDuringTheCallKeepsItPausedAfter() async throws {
        let rig = try await MprisRig(.pulseaudio)
        defer { rig.stop() }
        let music = try await rig.playingPlayer()
        let call = try rig.live.play(role: "phone")
        defer { call.stop() }
        try await rig.waitForStatus("Paused")
        try await rig.waitUntilTheDaemonSees(music, running: false)
        try await rig.playerctl(["play"])
        try await rig.waitUntilTheDaemonSees(music, running: true)
        try await rig.playerctl(["pause"])
        try await rig.waitUntilTheDaemonSees(music, running: false)
        call.stop()
        try await rig.waitUntilTheCallIsOver()
        #expect(try await rig.playerctl(["status"]) == "Paused")
        #expect(!rig.live.daemonLog().contains("Play sent to"))
    }

    @Test func unpluggingPausesThePlayerAndPluggingBackDoesNotPlayIt() async throws {
        let rig = try await MprisRig(.pulseaudio)
        defer { rig.stop() }
        let music = try await rig.playingPlayer()
        let headphones = try #require(try await rig.live.sinkIndex(named: "headphones"))
        try await eventually("mpv plays on the headphones (R1)") { try await rig.live.current(music.index)?.sinkIndex == headphones }
        let module = try #require(try rig.live.server.pactl(["list", "short", "modules"]).split(separator: "\n")
            .first { $0.contains("sink_name=headphones") }?.split(separator: "\t").first.flatMap { UInt32($0) })
        try rig.live.server.unloadModule(module)
        try await rig.waitForStatus("Paused")
        try rig.live.server.loadNullSink("headphones")
        try await rig.live.untilTheServersDevicesAreKnown()
        #expect(try await rig.playerctl(["status"]) == "Paused", "plugging back does not play it (P4)")
        #expect(try await rig.live.current(music.index)?.corked == true)
    }

    @Test func aStoppedPlayerIsSilencedInsteadAndNothingStaysSilentAfter() async throws {
        let rig = try await MprisRig(.pulseaudio)
        defer { rig.stop() }
        let music = try await rig.playingPlayer()
        kill(rig.mpv.processIdentifier, SIGSTOP)
        let call = try rig.live.play(role: "phone")
        defer { call.stop() }
        try await eventually("the daemon gives the player up (P6)", within: 30) { rig.live.daemonLog().contains("(P6)") }
        #expect(try await rig.live.current(music.index)?.isSilenced == true, "silenced as an unaware app")
        // Continued, mpv takes the pause it was sent (late): the daemon does not undo it (docs/POLICY-NOTES.md).
        kill(rig.mpv.processIdentifier, SIGCONT)
        call.stop()
        try await rig.waitUntilTheCallIsOver()
        if try await rig.playerctl(["status"]) != "Playing" { try await rig.playerctl(["play"]) }
        try await eventually("mpv plays after the call, and is heard: nothing is left silenced") {
            guard let stream = try await rig.live.current(music.index) else { return false }
            return !stream.corked && !stream.isSilenced
        }
        #expect(rig.live.daemonLog().components(separatedBy: "(P6)").count == 2, "logged once")
    }
}

extension MprisLiveTests {
    /// A daemon with no session bus (a system daemon, a kiosk) runs as before: a player is silenced as the unaware
    /// app it is, not paused, and the log says once why.
    @Test func withoutASessionBusAPlayerIsSilencedNotPausedAndTheLogSaysSoOnce() async throws {
        let rig = try await MprisRig(.pulseaudio, daemonOnTheBus: false)
        defer { rig.stop() }
        try await rig.waitForStatus("Playing")
        try await eventually("mpv's stream runs") {
            try await rig.live.observer.sinkInputs().contains { $0.properties["application.name"] == "mpv" && !$0.corked }
        }
        let music = try #require(try await rig.live.observer.sinkInputs().first { $0.properties["application.name"] == "mpv" })
        let call = try rig.live.play(role: "phone")
        defer { call.stop() }
        try await eventually("mpv's stream is silenced for the call") { try await rig.live.current(music.index)?.isSilenced == true }
        #expect(try await rig.playerctl(["status"]) == "Playing", "not paused: the daemon has no bus")
        call.stop()
        try await rig.waitUntilTheCallIsOver()
        try await eventually("mpv is heard again") { try await rig.live.current(music.index)?.isSilenced == false }
        #expect(rig.live.daemonLog().components(separatedBy: "media players are not paused").count == 2, "said once")
    }
}

/// One test's parts: a private session bus, a private sound server with a daemon on both, and mpv.
final class MprisRig: @unchecked Sendable {
    static let mprisPlugin = "/usr/lib/mpv-mpris/mpris.so"
    let bus: PrivateSessionBus
    let live: LiveDaemon
    let mpv: Process

    /// The player timeout is long, as a safety net: the tests wait on the player's answers, not on time.
    /// `daemonOnTheBus: false` runs the daemon with `--session-bus none` (mpv still has the bus).
    init(_ kind: PrivateSoundServer.Kind, playerTimeoutMs: Int = 5000, daemonOnTheBus: Bool = true) async throws {
        guard FileManager.default.fileExists(atPath: Self.mprisPlugin) else {
            throw LiveTestError("\(Self.mprisPlugin) is missing: install the Debian package mpv-mpris")
        }
        bus = try await PrivateSessionBus.start()
        do {
            live = try await LiveDaemon(
                kind, arguments: daemonOnTheBus ? [] : ["--session-bus", "none"],
                environment: daemonOnTheBus ? bus.environment : [:],
                configuration: "playerTimeoutMs: \(playerTimeoutMs)\n")
        } catch {
            bus.stop()
            throw error
        }
        do {
            let tone = live.server.directory + "/long.wav"
            try PrivateSoundServer.writeTone(to: tone, seconds: 120, frequency: 330)
            mpv = try live.server.spawn(
                "mpv", ["--no-config", "--script=\(Self.mprisPlugin)", "--no-video", "--ao=pulse", "--really-quiet", tone],
                environment: bus.environment)
        } catch {
            live.stop()
            bus.stop()
            throw error
        }
    }

    func stop() {
        if mpv.isRunning {
            kill(mpv.processIdentifier, SIGCONT)
            mpv.stop()
        }
        live.stop()
        bus.stop()
    }

    /// `playerctl -p mpv ARGUMENTS` on the private bus: the user's media keys.
    @discardableResult
    func playerctl(_ arguments: [String]) async throws -> String {
        guard let playerctl = ChildProcess.executable(named: "playerctl") else {
            throw LiveTestError("playerctl is not installed (Debian: playerctl)")
        }
        let output = try await ChildProcess.run(
            playerctl, ["-p", "mpv"] + arguments,
            environment: ChildProcess.environment(bus.environment), timeout: .seconds(20))
        return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Until the daemon has no call session any more (the call's stream went and its grace ran out).
    func waitUntilTheCallIsOver() async throws {
        try await eventually("the call's session is gone") {
            try self.live.client().result(Request(.status)).status?.sessions.contains(where: \.call) == false
        }
    }

    /// Until the daemon has taken mpv's stream as running or paused (a pause counts once it has settled,
    /// `StreamMachine.pauseSettling`: the user's next press must come after it to be seen).
    func waitUntilTheDaemonSees(_ stream: PulseSinkInput, running: Bool) async throws {
        try await eventually("the daemon sees mpv's stream \(running ? "running" : "paused")") {
            try self.live.client().result(Request(.status)).status?.streams
                .contains { $0.origin == "pulse sink-input \(stream.index)" && $0.running == running } == true
        }
    }

    func waitForStatus(_ status: String) async throws {
        try await eventually("playerctl says mpv is \(status)", within: 20) { try await self.playerctl(["status"]) == status }
    }

    /// mpv's stream, once mpv plays and the daemon has it as a player.
    func playingPlayer() async throws -> PulseSinkInput {
        try await waitForStatus("Playing")
        let observer = live.observer
        try await eventually("mpv's stream runs") {
            try await observer.sinkInputs().contains { $0.properties["application.name"] == "mpv" && !$0.corked }
        }
        try await eventually("the daemon has mpv as a player") {
            self.live.daemonLog().contains("org.mpris.MediaPlayer2.mpv")
        }
        return try #require(try await observer.sinkInputs().first { $0.properties["application.name"] == "mpv" })
    }
}
