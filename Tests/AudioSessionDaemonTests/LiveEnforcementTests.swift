import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// The daemon on real PulseAudio and PipeWire servers, with real streams, as an independent client sees them.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveEnforcementTests {
    static let seventy = PulseVolume(channels: [45875, 45875])

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func anUnawareCallMutesMusicAndTheMusicComesBackAfterIt(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        // The call lasts until the music has been seen silenced: a call shorter than a loaded machine's delays
        // could end before anyone looked.
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the music is silenced during the call, at volume 0 with the mute flag left alone") {
            let now = try await live.current(music.index)
            return now?.volume == music.volume.silenced && now?.muted == false
        }
        call.stop()
        try await eventually("the music is heard again at its volume after the call and its grace", within: 8) {
            let now = try await live.current(music.index)
            return now?.volume == music.volume && now?.muted == false
        }
    }

    /// The user's values during a hold are the user's (docs/RELIABILITY.md, "The user's values during a hold"):
    /// an unaware call silences the music; the user, as an independent client, mutes it and sets it to 50 %
    /// during the call: after the call the music is muted, by the user, at 50 %. In a second call the user
    /// unmutes it and sets 60 %: the hold wins while it lasts (the 60 % is put back to 0 at once), and after the
    /// call the music plays, unmuted, at 60 %. Before gain layers the policy held the music with the mute flag,
    /// so the user's mute changed nothing the server reported and the end of the call unmuted the music.
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aMuteAndAVolumeTheUserSetsDuringACallAreTheMusicsAfterIt(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        try await live.observer.setSinkInputVolume(music.index, Self.seventy)
        try await eventually("the user's 70 % is in force") { try await live.current(music.index)?.volume == Self.seventy }

        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the music is silenced by the call") { try await live.current(music.index)?.isSilenced == true }
        let fifty = PulseVolume(channels: [32768, 32768])
        try await live.observer.setSinkInputMute(music.index, true)
        try await live.observer.setSinkInputVolume(music.index, fifty)
        // The server's events come in order: the daemon sees the user's changes before the call's end.
        try await eventually("the music stays silent during the call, muted as the user set it") {
            let now = try await live.current(music.index)
            return now?.isSilenced == true && now?.muted == true
        }
        call.stop()
        // What the hold showed may already be the user's values (muted, whatever the volume): the hold is over
        // when the daemon says the music is audible, and what it wrote then is what stays.
        try await Self.waitUntilTheDaemonHears(music.index, live)
        try await eventually("after the call the music has what the user set during it: muted, at 50 %", within: 8) {
            let now = try await live.current(music.index)
            return now?.volume == fifty && now?.muted == true
        }
        try await Task.sleep(for: .milliseconds(1500))
        let afterFirst = try #require(try await live.current(music.index))
        #expect(afterFirst.volume == fifty && afterFirst.muted, "\(afterFirst.volume), muted \(afterFirst.muted)")

        let second = try live.play(role: "phone")
        defer { second.terminate() }
        try await eventually("the music is silenced by the second call, at volume 0") {
            try await live.current(music.index)?.volume == fifty.silenced
        }
        let sixty = PulseVolume(channels: [39322, 39322])
        try await live.observer.setSinkInputMute(music.index, false)
        try await live.observer.setSinkInputVolume(music.index, sixty)
        try await eventually("the call's hold wins: the user's 60 % is put back to 0 at once, the unmute is made") {
            let now = try await live.current(music.index)
            return now?.volume == fifty.silenced && now?.muted == false
        }
        second.stop()
        try await Self.waitUntilTheDaemonHears(music.index, live)
        try await eventually("after the second call the music plays, unmuted by the user, at 60 %", within: 8) {
            let now = try await live.current(music.index)
            return now?.volume == sixty && now?.muted == false
        }
        try await Task.sleep(for: .milliseconds(1500))
        let after = try #require(try await live.current(music.index))
        #expect(after.volume == sixty && after.muted == false, "\(after.volume), muted \(after.muted)")
    }

    /// Until the daemon's status says sink-input `index` is audible (its hold is over).
    static func waitUntilTheDaemonHears(_ index: UInt32, _ live: LiveDaemon) async throws {
        try await eventually("the daemon says the music is audible again", within: 8) {
            let streams = try live.client().result(Request(.status)).status?.streams ?? []
            return streams.contains { $0.origin == "pulse sink-input \(index)" && $0.verdict == "audible" }
        }
    }

    /// The user sets the music's volume while the end of a duck fades it back up (a fade of 6 s, so that the
    /// change lands inside it also when a loaded machine looks late): the fade stops there, and the user's volume
    /// is what the stream keeps. Before, the fade's next step wrote over it. On PulseAudio only: on PipeWire a
    /// fade step already on its way can still cross the user's change (docs/RELIABILITY.md, "Not promised yet"), and
    /// on a very loaded machine it did on PulseAudio too: that outcome, and only that one, is a known issue here.
    @Test func aVolumeTheUserSetsDuringAFadeStands() async throws {
        let live = try await LiveDaemon(.pulseaudio, configuration: "duckFadeMs: 6000\n")
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        try await live.observer.setSinkInputVolume(music.index, Self.seventy)
        let ducked = Self.seventy.scaled(by: 0.25)
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        try await eventually("the music is ducked") { try await live.current(music.index)?.volume == ducked }
        prompt.stop()
        // The fade up has begun: the volume is between the ducked one and the user's.
        try await eventually("the fade back up has begun") {
            let volume = try await live.current(music.index)?.volume
            return volume.map { $0 != ducked && $0 != Self.seventy } == true
        }
        let fifty = PulseVolume(channels: [32768, 32768])
        try await live.observer.setSinkInputVolume(music.index, fifty)
        // Past the fade's end (6 s) with a second to spare, nothing of the policy's has written over it.
        try await Task.sleep(for: .seconds(7))
        let kept = try await live.current(music.index)?.volume
        if let kept, kept != fifty, kept.average > ducked.average, kept.average <= Self.seventy.average {
            // What the window allows: a step of the fade crossed the user's change, and the stream ended on the
            // fade's way up (at a step, or run on to the user's old volume) instead of at the user's value. Any
            // other value (ducked, muted, above the old volume) fails.
            withKnownIssue("a fade step crossed the user's change (docs/RELIABILITY.md, \"Not promised yet\")", isIntermittent: true) {
                Issue.record("the volume ended at \(kept) on the fade's way up instead of the \(fifty) set during the fade")
            }
        } else {
            #expect(kept == fifty)
        }
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func duckingRestoresTheUsersExactVolumeAlsoAfterTheUserChangedItWhileDucked(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        try await live.observer.setSinkInputVolume(music.index, Self.seventy)
        let ducked = Self.seventy.scaled(by: 0.25)

        // Each prompt lasts until the duck has been seen, then ends.
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        try await eventually("the music is ducked to a quarter of the user's volume") { try await live.current(music.index)?.volume == ducked }
        prompt.stop()
        try await eventually("the user's exact volume is back", within: 8) { try await live.current(music.index)?.volume == Self.seventy }

        let second = try live.play(role: "navigation")
        defer { second.terminate() }
        try await eventually("ducked again") { try await live.current(music.index)?.volume == ducked }
        let fifty = PulseVolume(channels: [32768, 32768])
        try await live.observer.setSinkInputVolume(music.index, fifty)
        second.stop()
        try await eventually("the volume the user set while ducked is kept afterwards", within: 8) {
            try await live.current(music.index)?.volume == fifty
        }
        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await live.current(music.index)?.volume == fifty)
        #expect(try await live.current(music.index)?.muted == false)
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func unpluggingHeadphonesStopsMusicBeforeTheSpeakerPlaysIt(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let headphones = try #require(try await live.sinkIndex(named: "headphones"))
        try await eventually("the music plays on the headphones (the most recent port, R1)") { try await live.current(music.index)?.sinkIndex == headphones }
        let speaker = try #require(try await live.sinkIndex(named: "speaker"))

        // An independent observer notes when the stream is on the speaker and not silenced, and for how long.
        let gap = GapMeter()
        let watcher = Task {
            for await event in live.observer.events {
                guard case .changed(.sinkInput, _, music.index) = event,
                    let stream = try? await live.observer.sinkInput(music.index)
                else { continue }
                gap.note(onSpeaker: stream.sinkIndex == speaker, silenced: stream.isSilenced)
            }
        }
        defer { watcher.cancel() }
        let module = try #require(try live.server.pactl(["list", "short", "modules"]).split(separator: "\n")
            .first { $0.contains("sink_name=headphones") }?.split(separator: "\t").first.flatMap { UInt32($0) })
        try live.server.unloadModule(module)
        try await eventually("the music is silenced on the speaker (R4)") {
            guard let stream = try await live.current(music.index) else { return false }
            return stream.sinkIndex == speaker && stream.isSilenced
        }
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await live.current(music.index)?.isSilenced == true, "the stopped music must stay silent (O3)")
        print("R4 gap on \(kind): \(gap.report)")
        try live.server.loadNullSink("headphones")
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await live.current(music.index)?.isSilenced == true, "plugging back in does not restart it")
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func theUserChoosingTheDefaultSinkSelectsTheOutputForEveryone(_ kind: PrivateSoundServer.Kind) async throws {
        let live = try await LiveDaemon(kind)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let headphones = try #require(try await live.sinkIndex(named: "headphones"))
        let speaker = try #require(try await live.sinkIndex(named: "speaker"))
        try await eventually("the music plays on the headphones, the most recent port") { try await live.current(music.index)?.sinkIndex == headphones }
        try live.server.pactl(["set-default-sink", "headphones"])
        try live.server.pactl(["set-default-sink", "speaker"])
        try await eventually("the music follows the user's choice of the speaker (R3)") { try await live.current(music.index)?.sinkIndex == speaker }
        let status = try live.client().result(Request(.status)).status
        #expect(status?.selectedOutput == .speaker)
    }

    /// A stream that records what the machine plays (a sink's monitor: a level meter, a screen recorder) is not
    /// the user's voice: the policy neither moves it to the microphone (R6) nor mutes it for a call (A6).
    @Test func aRecorderOfASinksMonitorIsLeftAlone() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        let monitor = "speaker.monitor"
        let meter = try live.server.spawn("parecord", ["--device=\(monitor)", "/dev/null"])
        defer { meter.terminate() }
        try await eventually("the meter's stream appears") {
            try await live.observer.sourceOutputs().contains { $0.properties["application.name"] == "parecord" }
        }
        let stream = try #require(try await live.observer.sourceOutputs().first { $0.properties["application.name"] == "parecord" })
        let monitorIndex = try #require(try await live.observer.sources().first { $0.name == monitor }?.index)
        #expect(stream.sourceIndex == monitorIndex)
        // A call: it would mute any recorder of the user's voice; the daemon is seen to have judged it by the
        // music it mutes.
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the call silences the music") { try await live.current(music.index)?.isSilenced == true }
        let during = try await live.observer.sourceOutput(stream.index)
        #expect(during.map { !$0.isSilenced } == true, "the meter keeps hearing the machine during the call")
        #expect(during?.sourceIndex == monitorIndex, "the meter stays on the monitor")
        let listed = try live.client().result(Request(.status)).status?.streams ?? []
        #expect(!listed.contains { $0.origin == "pulse source-output \(stream.index)" }, "the daemon does not hold it: \(listed)")
    }

    @Test func anUnawareRecorderCapturesBesideMusicIsMutedByACallAndCapturesAgainAfter() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let recorder = try live.server.spawn("parecord", ["--raw", "/dev/null"])
        defer { recorder.terminate() }
        try await eventually("the recorder's stream appears") {
            try await live.observer.sourceOutputs().contains { $0.properties["application.name"] == "parecord" }
        }
        let index = try #require(try await live.observer.sourceOutputs().first { $0.properties["application.name"] == "parecord" }).index
        // Once the daemon has judged the recorder's stream, the server's mute is what the daemon made of it.
        try await eventually("the daemon has judged the recorder") {
            let streams = try live.client().result(Request(.status)).status?.streams ?? []
            return streams.contains { $0.origin == "pulse source-output \(index)" && $0.verdict == "capturing" }
        }
        let capturing = try #require(try await live.observer.sourceOutput(index))
        #expect(!capturing.isSilenced, "a recorder that names no role captures")
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the call silences the recorder (A6), the mute flag left to the user") {
            let now = try await live.observer.sourceOutput(index)
            return now?.volume == capturing.volume.silenced && now?.muted == false
        }
        call.stop()
        try await eventually("the recorder captures again at its volume after the call (U3)", within: 8) {
            let now = try await live.observer.sourceOutput(index)
            return now?.volume == capturing.volume && now?.muted == false
        }
    }

    @Test func aKilledSoundServerIsReportedAndThePolicyIsAppliedAgainWhenItIsBack() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        try await live.untilTheServersDevicesAreKnown()
        let app = try live.client()
        _ = try app.result(Request(.subscribe))
        try await live.server.kill()
        #expect(try app.nextEvent().event == .mediaServicesWereLost)
        try await live.server.restart()
        #expect(try app.nextEvent().event == .mediaServicesWereReset)
        live.observer.close()
        let observer = PulseConnection(server: live.server.pulseServer, applicationName: "observer-2")
        try await observer.connect()
        defer { observer.close() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the policy is enforced on the new server") {
            try await observer.sinkInputs().first { $0.properties["media.role"] == "music" }?.isSilenced == true
        }
    }

    @Test func garbageTruncatedAndOversizedMessagesGetErrorsAndHarmNoOne() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        let bystander = try live.client()
        _ = try bystander.result(Request(.hello()))
        let rogue = try live.client()
        let cases: [(String, String)] = [
            ("this is not json", "malformedMessage"),
            ("{\"op\": \"activate\"", "malformedMessage"),
            ("[1, 2, 3]", "malformedMessage"),
            ("{\"op\": \"fly\"}", "unknownOperation"),
            ("{\"op\": \"setCategory\", \"category\": \"loud\"}", "badField"),
            ("{\"op\": \"setCategory\"}", "missingField"),
            ("{\"op\": \"activate\", \"colour\": 1}", "unknownField"),
            (String(repeating: "x", count: 70_000), "messageTooLarge"),
            ("\u{00}\u{01}\u{02}", "malformedMessage"),
        ]
        for (line, code) in cases {
            try rogue.send(line: line)
            let reply = try LineCoding.decodeServerMessage(rogue.readLine())
            guard case .reply(let body) = reply else { Issue.record("no reply to \(line.prefix(20))"); continue }
            #expect(body.error?.code == code, "for \(line.prefix(30))")
        }
        let rogueState = try rogue.call(Request(.getState))
        #expect(rogueState.result?.state?.state == .inactive, "\(rogueState)")
        #expect(try bystander.result(Request(.activate)).state?.state == .active)
    }

    @Test func aClientThatDiesHoldingAnActiveSessionEndsTheInterruptionItCaused() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        // Had the music been active when the headphones were reported, its first event would be their route change,
        // not the dying app's interruption.
        try await live.untilTheServersDevicesAreKnown()
        let music = try live.client()
        _ = try music.result(Request(.subscribe))
        let playback = Request(.setCategory(.playback))
        _ = try music.result(playback)
        _ = try music.result(Request(.activate))
        let script = """
            import socket, time
            s = socket.socket(socket.AF_UNIX); s.connect("\(live.socket)")
            s.sendall(b'{"op":"hello","app":"dying-app"}\\n{"op":"setCategory","category":"playback"}\\n{"op":"activate"}\\n')
            s.recv(65536); time.sleep(60)
            """
        let dying = try live.server.spawn("python3", ["-c", script])
        // When the interruption does not come, what the dying app did says why (it may not have connected).
        let began = Result { try music.nextEvent() }
        #expect(
            (try? began.get()) == Event(.interruption, type: "began", because: "interrupted by dying-app (A4)"),
            """
            music got \(began); the dying app \(dying.isRunning ? "runs" : "exited with \(dying.terminationStatus)"), \
            its output: \(live.server.output(of: dying).suffix(600))
            """
        )
        try #require(try began.get().event == .interruption)
        kill(dying.processIdentifier, SIGKILL)
        let ended = try music.nextEvent()
        #expect(ended.event == .interruption && ended.type == "ended" && ended.shouldResume == false)
    }

    @Test func sigtermGivesEveryStreamBackItsUsersValues() async throws {
        let live = try await LiveDaemon(.pulseaudio)
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        try await live.observer.setSinkInputVolume(music.index, Self.seventy)
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the music is silenced by the call") { try await live.current(music.index)?.isSilenced == true }
        live.process.stop()
        let after = try #require(try await live.current(music.index))
        #expect(after.muted == false)
        #expect(after.volume == Self.seventy)
    }

    /// A daemon on a private `kind` that saves stream values per role (module-stream-restore on PulseAudio, as
    /// WirePlumber's restore-stream on PipeWire), and music the user set to 70 %: the daemon, its player, its
    /// stream. Stopped here if the setup fails; the caller stops them otherwise.
    static func musicTheUserSetToSeventy(on kind: PrivateSoundServer.Kind) async throws
        -> (LiveDaemon, Process, PulseSinkInput)
    {
        let live = try await LiveDaemon(kind, extraModules: kind == .pulseaudio ? ["module-stream-restore"] : [])
        var player: Process?
        do {
            let first = try live.play(role: "music")
            player = first
            let music = try await live.stream(role: "music")
            try await live.observer.setSinkInputVolume(music.index, Self.seventy)
            try await eventually("the user's volume is in force") { try await live.current(music.index)?.volume == Self.seventy }
            return (live, first, music)
        } catch {
            player?.terminate()
            live.stop()
            throw error
        }
    }

    /// An app's next stream starts with the user's values, never with a policy value the server saved from its
    /// last one (PulseAudio's module-stream-restore and WirePlumber's restore-stream save a stream's values
    /// per role when it ends): music the user set to 70 % ends silenced by a call, then ends ducked by a prompt, and
    /// each time the app's next music stream plays at 70 %, unmuted.
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func anAppsNextStreamStartsWithTheUsersValuesNotThePolicys(_ kind: PrivateSoundServer.Kind) async throws {
        let (live, first, music) = try await Self.musicTheUserSetToSeventy(on: kind)
        defer { live.stop() }
        defer { first.terminate() }

        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the music is silenced by the call") { try await live.current(music.index)?.isSilenced == true }
        first.stop()
        try await eventually("the silenced music stream is gone") { try await live.current(music.index) == nil }
        call.stop()
        // Until the call is over (its grace included) a new music stream would be kept silent, and so would the
        // prompt that follows (A2): the next stream starts after it.
        try await eventually("the call is over") {
            let sessions = try live.client().result(Request(.status)).status?.sessions ?? []
            return !sessions.contains { $0.category == .playAndRecord && $0.state == .active }
        }
        let second = try live.play(role: "music")
        defer { second.terminate() }
        let next = try await live.stream(role: "music")
        try await eventually("the next music stream plays at the user's 70 %, unmuted") {
            let now = try await live.current(next.index)
            return now?.volume == Self.seventy && now?.muted == false
        }

        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        try await eventually("the music is ducked by the prompt") {
            try await live.current(next.index)?.volume == Self.seventy.scaled(by: 0.25)
        }
        second.stop()
        try await eventually("the ducked music stream is gone") { try await live.current(next.index) == nil }
        prompt.stop()
        let third = try live.play(role: "music")
        defer { third.terminate() }
        let last = try await live.stream(role: "music")
        try await eventually("the music stream after that plays at the user's 70 %, unmuted") {
            let now = try await live.current(last.index)
            return now?.volume == Self.seventy && now?.muted == false
        }
    }

    /// The server saves a stream's values per restore key as they change, the policy's duck too, and starts a
    /// new stream of the key with them: music the user set to 70 % is ducked by a prompt, a second music stream
    /// starts meanwhile (at the ducked volume, on PipeWire), and when the prompt ends both play at 70 %, not the
    /// second at the leftover it came with.
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aStreamStartedWhileAnotherOfItsKindIsDuckedGetsTheUsersVolume(_ kind: PrivateSoundServer.Kind) async throws {
        let (live, first, music) = try await Self.musicTheUserSetToSeventy(on: kind)
        defer { live.stop() }
        defer { first.terminate() }
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        let duckedVolume = Self.seventy.scaled(by: 0.25)
        try await eventually("the music is ducked by the prompt") { try await live.current(music.index)?.volume == duckedVolume }

        let second = try live.play(role: "music")
        defer { second.terminate() }
        // PipeWire shows a new stream at volume 0 until the values it restores arrive.
        var next: PulseSinkInput?
        let deadline = ContinuousClock.now + .seconds(15)
        while next == nil, ContinuousClock.now < deadline {
            next = try await live.observer.sinkInputs().first {
                $0.properties["media.role"] == "music" && $0.index != music.index && $0.volume.average > 0
            }
            if next == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let nextIndex = try #require(next, "no second music stream with a volume above 0 within 15 s").index
        try await eventually("the second music stream is ducked from the user's 70 %") {
            try await live.current(nextIndex)?.volume == duckedVolume
        }
        prompt.stop()
        try await eventually("both music streams play at the user's 70 % after the prompt") {
            let now = (try await live.current(music.index), try await live.current(nextIndex))
            return now.0?.volume == Self.seventy && now.1?.volume == Self.seventy
        }
    }

    @Test func streamRestoreKeepsTheUsersValuesNotThePolicys() async throws {
        let live = try await LiveDaemon(.pulseaudio, extraModules: ["module-stream-restore"])
        defer { live.stop() }
        let player = try live.play(role: "music")
        let music = try await live.stream(role: "music")
        try await live.observer.setSinkInputVolume(music.index, Self.seventy)
        let call = try live.play(role: "phone")
        defer { call.terminate() }
        try await eventually("the music is silenced by the call") { try await live.current(music.index)?.isSilenced == true }
        let key = try #require(music.properties["module-stream-restore.id"])
        player.stop()
        // The daemon moved the music to the headphones (the most recent port); that is the policy's choice,
        // not the user's, so the saved device goes back to what it was (none) too.
        try await eventually("the saved state of \(key) holds the user's values") {
            guard let saved = try await live.observer.streamRestoreEntry(key) else { return false }
            return saved.muted == false && saved.volume == Self.seventy && saved.device == nil
        }
    }
}

/// Measures how long a stream was on the speaker and not silenced: the time R4's stop took to be heard.
final class GapMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var audibleSince: ContinuousClock.Instant?
    private var longest: Duration = .zero
    private var samples = 0

    func note(onSpeaker: Bool, silenced: Bool) {
        lock.lock()
        defer { lock.unlock() }
        samples += 1
        if onSpeaker && !silenced {
            audibleSince = audibleSince ?? .now
        } else if let since = audibleSince {
            longest = max(longest, .now - since)
            audibleSince = nil
        }
    }

    var report: String {
        lock.lock()
        defer { lock.unlock() }
        return "audible on the speaker for at most \(longest) as the observer saw it (\(samples) reports)"
    }
}
