import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// After an unplug (POLICY R4) a music stream stays silent until its app restarts it, so private audio never
/// moves to the speaker; then it is heard again where it is now. The status says why it is silent and what brings
/// it back, and an app that cannot pause gets its sound back with `resumeStream` (`audiosessionctl resume`).
/// On private PulseAudio and PipeWire servers, with real streams; each wait is for what the server or the daemon
/// reports.
@Suite(.serialized, .timeLimit(.minutes(4))) struct RouteLossRecoveryTests {
    static func unplugHeadphones(_ live: LiveDaemon) throws {
        let module = try #require(
            try live.server.pactl(["list", "short", "modules"]).split(separator: "\n")
                .first { $0.contains("sink_name=headphones") }?.split(separator: "\t").first.flatMap { UInt32($0) }
        )
        try live.server.unloadModule(module)
    }

    /// The daemon's status entry for the server stream with sink-input `index`.
    static func statusStream(_ live: LiveDaemon, sinkInput index: UInt32) throws -> StreamBody? {
        try live.client().result(Request(.status)).status?.streams.first { $0.origin == "pulse sink-input \(index)" }
    }

    /// The music silent on the speaker by R4, as the daemon says and the server shows. The server's silence alone
    /// is not enough: the daemon holds a stream the server moved silent at once, before its policy has decided, and
    /// on a loaded machine a test that went on then found the stream still audible to the policy.
    static func waitForR4(_ live: LiveDaemon, sinkInput index: UInt32, speaker: UInt32) async throws {
        try await eventually("the music is silent on the speaker (R4)") {
            let stream = try await live.current(index)
            guard stream?.sinkIndex == speaker, stream?.isSilenced == true else { return false }
            return try Self.statusStream(live, sinkInput: index)?.because.contains("(R4)") == true
        }
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aStreamTheUnplugStoppedPlaysAgainWhenItsAppRestartsIt(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let app = try await PulsePlaybackStream.open(
            server: live.server.pulseServer,
            name: "music-app",
            properties: ["media.role": "music"]
        )
        defer { app.close() }
        let index = app.sinkInputIndex
        let headphones = try #require(try await live.sinkIndex(named: "headphones"))
        let speaker = try #require(try await live.sinkIndex(named: "speaker"))
        try await eventually("the music plays on the headphones") {
            let stream = try await live.current(index)
            return stream?.sinkIndex == headphones && stream?.isSilenced == false
        }
        let user = try #require(try await live.current(index)).volume

        try Self.unplugHeadphones(live)
        try await Self.waitForR4(live, sinkInput: index, speaker: speaker)
        let silenced = try #require(try Self.statusStream(live, sinkInput: index))
        #expect(silenced.verdict == "silent")
        #expect(silenced.because.contains("headphones was disconnected (R4)"), "\(silenced.because)")
        #expect(silenced.because.contains("when its app restarts it"), "\(silenced.because)")
        #expect(silenced.because.contains("audiosessionctl resume \(silenced.stream)"), "\(silenced.because)")

        // The app pauses (the daemon sees the stream stop running) and plays again: heard on the speaker.
        try await app.cork(true)
        try await eventually("the daemon sees the music paused") { try Self.statusStream(live, sinkInput: index)?.running == false }
        try await app.cork(false)
        try await eventually("the restarted music is heard on the speaker") {
            let stream = try await live.current(index)
            return stream?.sinkIndex == speaker && stream?.volume == user && stream?.muted == false
        }
        #expect(try Self.statusStream(live, sinkInput: index)?.verdict == "audible")
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func anAppThatCannotPauseGetsItsSoundBackOnResume(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")  // paplay: it cannot pause
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let headphones = try #require(try await live.sinkIndex(named: "headphones"))
        let speaker = try #require(try await live.sinkIndex(named: "speaker"))
        try await eventually("the music plays on the headphones") { try await live.current(music.index)?.sinkIndex == headphones }

        // Resuming a stream that nothing stopped is refused, saying why it sounds as it does.
        let control = try live.client()
        let audible = try #require(try Self.statusStream(live, sinkInput: music.index))
        let early = Request(.resumeStream(audible.stream))
        let refused = try control.call(early)
        #expect(refused.ok == false)
        #expect(refused.error?.code == "badParam", "\(refused)")
        #expect(refused.error?.message.contains("is audible") == true, "\(refused)")

        try Self.unplugHeadphones(live)
        try await Self.waitForR4(live, sinkInput: music.index, speaker: speaker)
        let resume = Request(.resumeStream(audible.stream))
        let resumed = try control.call(resume)
        #expect(resumed.ok, "\(resumed)")
        try await eventually("the music is heard on the speaker at its volume") {
            let stream = try await live.current(music.index)
            return stream?.volume == music.volume && stream?.muted == false
        }
        #expect(try await live.current(music.index)?.sinkIndex == speaker)

        // A number that names no stream is a clear error.
        let missing = Request(.resumeStream(9999))
        let unknown = try control.call(missing)
        #expect(unknown.error?.field == "stream")
        #expect(unknown.error?.message.contains("there is no stream 9999") == true, "\(unknown)")
    }
}
