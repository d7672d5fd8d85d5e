import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Locking
import Testing

@testable import AudioSessionCLI

/// A real `audiosessiond --no-sound-server` enforcing the silent switch and the system volume on a real ALSA
/// mixer control: the `pulse` control device of libasound2-plugins, whose `Master` is the private PulseAudio
/// server's default sink. What the control does is read back from the server with pactl, as a user would.
@Suite(.serialized, .timeLimit(.minutes(4))) struct AlsaMixerLiveTests {
    /// The daemon process with an `alsa` section naming the `pulse` card, on a private PulseAudio.
    final class MixerDaemon: Sendable {
        let server: PrivateSoundServer
        let socket: String
        let state: String
        let configuration: String
        let process: SharedValue<Process?>

        init() throws {
            server = try PrivateSoundServer.start(.pulseaudio)
            socket = server.directory + "/control"
            state = server.directory + "/state"
            configuration = server.directory + "/alsa.yaml"
            try "alsa: { mixer: { card: pulse, control: Master }, jacks: { card: pulse } }\n".write(
                toFile: configuration,
                atomically: true,
                encoding: .utf8
            )
            process = SharedValue(nil)
        }

        func start() async throws {
            let daemon = try server.spawn(
                LiveDaemon.daemonPath,
                ["--no-sound-server", "--socket", socket, "--config", configuration, "--state-dir", state]
            )
            process.set(daemon)
            try await eventually("the daemon listens on \(socket)") {
                (try? ControlConnection(path: self.socket, readTimeout: .seconds(60))) != nil
            }
            try await eventually("the daemon has opened the mixer") { try self.status().volume != nil }
        }

        /// SIGTERM (graceful) or SIGKILL (a crash), and its end waited for without blocking a thread.
        func stop(crash: Bool = false) async {
            guard let daemon = process.get(), daemon.isRunning else { return }
            if crash { kill(daemon.processIdentifier, SIGKILL) } else { daemon.terminate() }
            while daemon.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        }

        func finish() {
            process.get()?.terminate()
            server.stop()
        }

        func control() throws -> ControlConnection { try ControlConnection(path: socket, readTimeout: .seconds(60)) }

        func status() throws -> StatusBody { try control().status() }

        func send(_ command: Command) throws { _ = try control().result(Request(command)) }

        /// The default sink's mute, as the server reports it.
        func sinkMuted() throws -> Bool {
            try server.pactl(["get-sink-mute", "@DEFAULT_SINK@"]).contains("yes")
        }

        /// The default sink's volume in percent (the first channel), as the server reports it.
        func sinkPercent() throws -> Int {
            let text = try server.pactl(["get-sink-volume", "@DEFAULT_SINK@"])
            guard let range = text.range(of: #"(\d+)%"#, options: .regularExpression) else {
                throw LiveTestError("no volume in: \(text)")
            }
            return Int(text[range].dropLast()) ?? -1
        }
    }

    @Test func theSwitchMutesTheControlWhileNothingTheSwitchSparesPlaysAndTheVolumeIsSet() async throws {
        let daemon = try MixerDaemon()
        defer { daemon.finish() }
        try await daemon.start()

        try daemon.send(.setVolume(0.4))
        try await eventually("the sink is at 40%") { try (39...41).contains(daemon.sinkPercent()) }
        #expect(try daemon.status().volume == 0.4)

        try daemon.send(.setSilentSwitch(.silent))
        try await eventually("the switch mutes the sink") { try daemon.sinkMuted() }
        #expect(try daemon.status().mixerMuted == true)

        // Music, a playback session the switch spares, plays through ALSA itself and reports its stream.
        let music = try ControlConnection(path: daemon.socket, readTimeout: .seconds(60))
        _ = try music.result(Request(.hello()))
        _ = try music.result(Request(.setCategory(.playback)))
        _ = try music.result(
            Request(.startStream(1, direction: .output))
        )
        try await eventually("the sink is given back for the music") { try !daemon.sinkMuted() }
        _ = try music.result(Request(.pauseStream(1)))
        try await eventually("the sink is muted again") { try daemon.sinkMuted() }

        // The user changes the volume with another tool: that is the system volume now, and it is kept.
        _ = try daemon.server.pactl(["set-sink-volume", "@DEFAULT_SINK@", "70%"])
        try await eventually("the daemon takes 70% as the system volume") {
            try daemon.status().volume.map { abs($0 - 0.7) < 0.01 } == true
        }
        #expect(try daemon.sinkMuted())

        // SIGTERM while held: the user's values come back.
        await daemon.stop()
        #expect(try !daemon.sinkMuted())
        #expect(try (69...71).contains(daemon.sinkPercent()))
    }

    @Test func theUsersOwnMuteIsNeverUndoneAndTheirUnmuteStands() async throws {
        let daemon = try MixerDaemon()
        defer { daemon.finish() }
        _ = try daemon.server.pactl(["set-sink-mute", "@DEFAULT_SINK@", "1"])
        try await daemon.start()
        try daemon.send(.setSilentSwitch(.silent))
        try await eventually("the daemon holds it") { try daemon.status().mixerMuted == true }
        try daemon.send(.setSilentSwitch(.ring))
        try await eventually("the daemon gives it back") { try daemon.status().mixerMuted == false }
        // Nothing is to change from here: a second for a late write to show.
        try await Task.sleep(for: .seconds(1))
        #expect(try daemon.sinkMuted(), "the user had muted it before the daemon started")

        // The user unmutes while the switch holds it: the daemon does not mute it again behind their back.
        // First the user unmutes it while it is not held. The daemon must have seen that before the switch goes
        // to silent, or it takes the unmute for one made while held (it was: a loaded run); the control's events
        // come in order, so a volume set after the unmute and seen by the daemon means it has seen the unmute.
        _ = try daemon.server.pactl(["set-sink-mute", "@DEFAULT_SINK@", "0"])
        _ = try daemon.server.pactl(["set-sink-volume", "@DEFAULT_SINK@", "55%"])
        try await eventually("the daemon has seen the unmute, and the volume set after it") {
            try daemon.status().volume.map { abs($0 - 0.55) < 0.01 } == true
        }
        try daemon.send(.setSilentSwitch(.silent))
        try await eventually("held again") { try daemon.sinkMuted() }
        _ = try daemon.server.pactl(["set-sink-mute", "@DEFAULT_SINK@", "0"])
        try await eventually("the status says the daemon no longer holds it") {
            try daemon.status().mixerMuted == false
        }
        try await Task.sleep(for: .seconds(1))
        #expect(try !daemon.sinkMuted())
        await daemon.stop()
        #expect(try !daemon.sinkMuted())
    }

    /// Holding and giving back touch the switch only: the user's balance between channels is kept.
    @Test func theSwitchLeavesTheUsersBalanceBetweenChannelsAlone() async throws {
        let daemon = try MixerDaemon()
        defer { daemon.finish() }
        _ = try daemon.server.pactl(["set-sink-volume", "@DEFAULT_SINK@", "60%", "40%"])
        try await daemon.start()
        try daemon.send(.setSilentSwitch(.silent))
        try await eventually("held") { try daemon.sinkMuted() }
        try daemon.send(.setSilentSwitch(.ring))
        try await eventually("given back") { try !daemon.sinkMuted() }
        let volumes = try daemon.server.pactl(["get-sink-volume", "@DEFAULT_SINK@"])
        #expect(volumes.contains("60%") && volumes.contains("40%"), "the user's left and right: \(volumes)")
    }

    @Test func aDaemonKilledWhileHoldingTheControlGivesItBackWhenItStartsAgain() async throws {
        let daemon = try MixerDaemon()
        defer { daemon.finish() }
        try await daemon.start()
        try daemon.send(.setSilentSwitch(.silent))
        try await eventually("held") { try daemon.sinkMuted() }
        await daemon.stop(crash: true)
        #expect(try daemon.sinkMuted(), "a killed daemon cannot give back")
        #expect(FileManager.default.fileExists(atPath: daemon.state + "/mixer.json"))

        // Started again (the switch is still silent, from the saved settings): the journal says the mute was
        // the daemon's, so on ring the control is the user's unmuted one again; without it, the daemon would
        // take the mute for the user's own and never lift it.
        try await daemon.start()
        try daemon.send(.setSilentSwitch(.ring))
        try await eventually("the user's unmuted control is back") { try !daemon.sinkMuted() }
    }
}

/// A value shared with `Sendable` closures, set once in a while by the test.
final class SharedValue<Value: Sendable>: Sendable {
    private let storage: Locking.Locked<Value>
    init(_ value: Value) { storage = Locking.Locked(value) }
    func get() -> Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}
