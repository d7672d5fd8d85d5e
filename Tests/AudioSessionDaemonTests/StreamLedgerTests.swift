import AudioSessionDaemonCore
import AudioSessionPolicy
import PulseBackend
import Testing

@testable import AudioSessionDaemon

/// The user's own volume and mute stay apart from the policy's.
@Suite struct StreamLedgerTests {
    static let stream = StreamOrigin.sinkInput(4)
    static let seventy = PulseVolume(channels: [45875, 45875])
    static let ducked = StreamVerdict(level: .ducked(gain: 0.25, fadeMilliseconds: 200), port: .speaker, reason: Reason(.O7))
    static let audible = StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8))
    static let silent = StreamVerdict(level: .silent, port: .speaker, reason: Reason(.A6))
    /// The policy's silence: a gain of 0 on the user's volume; the mute flag is the user's.
    static let zero = PulseVolume(channels: [0, 0])

    static func ledger(muted: Bool = false) -> StreamLedger {
        var ledger = StreamLedger()
        _ = ledger.observe(stream, volume: seventy, muted: muted, device: 0, restoreKey: "sink-input-by-media-role:music")
        return ledger
    }

    /// Applies writes as the server would, noting volumes as the session does.
    static func perform(_ writes: [StreamLedger.Write], on ledger: inout StreamLedger) {
        for case .volume(let origin, let volume) in writes { ledger.noteWritten(volume, for: origin) }
    }

    @Test func duckingScalesTheUsersVolumeAndTheEndRestoresItExactly() {
        var ledger = Self.ledger()
        let duck = ledger.apply(Self.ducked, to: Self.stream, device: nil)
        #expect(duck == [.volume(Self.stream, Self.seventy.scaled(by: 0.25))])
        Self.perform(duck, on: &ledger)
        let restore = ledger.apply(Self.audible, to: Self.stream, device: nil)
        #expect(restore == [.volume(Self.stream, Self.seventy)])
    }

    /// PipeWire shows a new stream at volume 0 while it links it, and may report it running before its volume:
    /// a duck decided then (on the placeholder 0, so nothing to write) is written once the stream's own volume
    /// is reported, on that volume, which is the user's, not a change the user made while it was ducked.
    @Test func aDuckDecidedOnPipeWiresPlaceholderVolumeIsWrittenOnTheStreamsFirstRealVolume() {
        var ledger = StreamLedger()
        let key = "sink-input-by-media-role:music"
        let linking = ledger.observe(
            Self.stream, volume: Self.zero, muted: false, device: StreamLedger.noDevice, restoreKey: key)
        #expect(linking.1.isEmpty)
        let running = ledger.observe(Self.stream, volume: Self.zero, muted: false, device: 7, restoreKey: key)
        #expect(running.0 == .nothingNew && running.1.isEmpty)
        #expect(ledger.apply(Self.ducked, to: Self.stream, device: nil).isEmpty, "a duck of 0 writes nothing")
        let real = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 7, restoreKey: key)
        #expect(real.0 == .nothingNew, "the stream's own volume, not the user's change")
        #expect(real.1 == [.volume(Self.stream, Self.seventy.scaled(by: 0.25))])
        Self.perform(real.1, on: &ledger)
        #expect(ledger.entries[Self.stream]?.userVolume == Self.seventy)
        // Once real, a volume set while ducked is the user's, and stands (no duck on top of it).
        let set = PulseVolume(channels: [32768, 32768])
        let change = ledger.observe(Self.stream, volume: set, muted: false, device: 7, restoreKey: key)
        #expect(change.0 == .userSetVolume && change.1.isEmpty)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [])
    }

    /// A verdict that cannot be journaled (full disk): of ducked -> audible on another device only the louder
    /// volume is made; the move waits, and is made by the verdict tried again.
    @Test func ofAVerdictThatWaitsForTheJournalOnlyWhatGivesBackIsMade() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        let before = ledger.entries[Self.stream]
        _ = ledger.apply(Self.audible, to: Self.stream, device: 7)
        ledger.putBack(before, for: Self.stream)
        let givenBack = ledger.giveBack(Self.audible, to: Self.stream, device: 7)
        #expect(givenBack == [.volume(Self.stream, Self.seventy)])
        Self.perform(givenBack, on: &ledger)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: 7) == [.move(Self.stream, toDevice: 7)])
        // Nothing to give back of a silence; and the end of a silence waits for the move the verdict also asks.
        var silencing = Self.ledger()
        #expect(silencing.giveBack(Self.silent, to: Self.stream, device: nil) == [])
        var moving = Self.ledger()
        Self.perform(moving.apply(Self.silent, to: Self.stream, device: nil), on: &moving)
        #expect(moving.giveBack(Self.audible, to: Self.stream, device: 7) == [])
        #expect(moving.giveBack(Self.ducked, to: Self.stream, device: nil) == [.volume(Self.stream, Self.seventy.scaled(by: 0.25))])
    }

    /// A hold after a server move that could not be made (full disk) is not taken for made: the policy's stop
    /// that follows writes the silence.
    @Test func aHoldThatWasNotMadeIsMadeByTheNextVerdict() {
        var ledger = Self.ledger()
        let (observation, hold) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 3, restoreKey: nil)
        #expect(observation == .movedByServer && hold == [.volume(Self.stream, Self.zero)])
        ledger.notMade(.volume(Self.stream, Self.zero))
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.volume(Self.stream, Self.zero)])
    }

    @Test func aVolumeTheUserSetsWhileDuckedBecomesTheUsersAndStands() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        let fifty = PulseVolume(channels: [32768, 32768])
        _ = ledger.observe(Self.stream, volume: fifty, muted: false, device: 0, restoreKey: nil)
        #expect(ledger.entries[Self.stream]?.userVolume == fifty)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [])
    }

    /// A stream that ends ducked leaves the ducked volume in the server's saved state on PipeWire; the app's
    /// next stream, which comes with it (after PipeWire's first report: no device, volume 0), gets the user's
    /// volume back, and ducking it again scales the user's volume, not the leftover.
    @Test func theNextStreamOfAnAppGetsTheUsersValuesBackFromWhatThePolicyLeft() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        _ = ledger.remove(Self.stream)
        let next = StreamOrigin.sinkInput(9)
        let key = "sink-input-by-media-role:music"
        let linking = ledger.observe(next, volume: PulseVolume(channels: [0, 0]), muted: false, device: StreamLedger.noDevice, restoreKey: key)
        #expect(linking.0 == .nothingNew && linking.1.isEmpty)
        let restored = ledger.observe(next, volume: Self.seventy.scaled(by: 0.25), muted: false, device: 0, restoreKey: key)
        #expect(restored.0 == .policyValuesTakenBack)
        #expect(restored.1.isEmpty, "not judged yet: its first verdict writes")
        #expect(ledger.entries[next]?.userVolume == Self.seventy)
        #expect(ledger.apply(Self.audible, to: next, device: nil) == [.volume(next, Self.seventy)])
        Self.perform([.volume(next, Self.seventy)], on: &ledger)
        #expect(ledger.apply(Self.ducked, to: next, device: nil) == [.volume(next, Self.seventy.scaled(by: 0.25))])
        #expect(ledger.leftBehind.isEmpty)
    }

    /// A stream that ends silenced by the policy: the server saved its volume 0 (WirePlumber's restore-stream;
    /// module-stream-restore too, until the daemon mends it) and the next one comes at 0. It gets the user's
    /// volume back, unless the policy silences it now (then only the user's values change under the silence).
    @Test func aSilenceThePolicyLeftIsTakenBackButThePolicysSilenceNow() {
        var ledger = Self.ledger()
        let silence = ledger.apply(Self.silent, to: Self.stream, device: nil)
        #expect(silence == [.volume(Self.stream, Self.zero)])
        Self.perform(silence, on: &ledger)
        _ = ledger.remove(Self.stream)
        let next = StreamOrigin.sinkInput(9)
        let key = "sink-input-by-media-role:music"
        let restored = ledger.observe(next, volume: Self.zero, muted: false, device: 0, restoreKey: key)
        #expect(restored.0 == .policyValuesTakenBack && restored.1.isEmpty)
        #expect(ledger.entries[next]?.userVolume == Self.seventy && ledger.entries[next]?.userMuted == false)
        #expect(ledger.apply(Self.silent, to: next, device: nil) == [], "a call now: it stays silent")
        #expect(ledger.apply(Self.audible, to: next, device: nil) == [.volume(next, Self.seventy)])
    }

    /// The server saves a stream's values per restore key as they change, the policy's too (WirePlumber's
    /// restore-stream keys music by its role, so two music players share a key), and starts a new stream of
    /// that key with them. A stream that starts with the policy's mute of another stream of its kind still
    /// held muted (a second player started during a call) gets that stream's user values: it is unmuted when
    /// its own verdict lets it be heard. Live: p-player-pressed-during-a-call... on PipeWire.
    @Test func aStreamThatStartsWithThePolicysValuesOfAnotherOfItsKindGetsItsUsersValues() {
        var ledger = Self.ledger()
        let silence = ledger.apply(Self.silent, to: Self.stream, device: nil)
        #expect(silence == [.volume(Self.stream, Self.zero)])
        Self.perform(silence, on: &ledger)
        let second = StreamOrigin.sinkInput(9)
        let key = "sink-input-by-media-role:music"
        let linking = ledger.observe(second, volume: Self.zero, muted: false, device: StreamLedger.noDevice, restoreKey: key)
        #expect(linking.0 == .nothingNew && linking.1.isEmpty)
        // On a device at volume 0: the silence the server saved from the first stream, not PipeWire's linking.
        let restored = ledger.observe(second, volume: Self.zero, muted: false, device: 0, restoreKey: key)
        #expect(restored.0 == .policyValuesOfAnotherStreamTakenBack && restored.1.isEmpty)
        #expect(ledger.entries[second]?.userVolume == Self.seventy && ledger.entries[second]?.userMuted == false)
        #expect(ledger.apply(Self.silent, to: second, device: nil) == [], "during the call it stays silent")
        #expect(ledger.apply(Self.audible, to: second, device: nil) == [.volume(second, Self.seventy)])
        // Ducked likewise: the ducked volume the server gives the next stream is not its user's volume.
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        let third = StreamOrigin.sinkInput(11)
        let ducked = ledger.observe(third, volume: Self.seventy.scaled(by: 0.25), muted: false, device: 0, restoreKey: key)
        #expect(ducked.0 == .policyValuesOfAnotherStreamTakenBack)
        #expect(ledger.entries[third]?.userVolume == Self.seventy)
    }

    /// When another stream of the key has those values as its user's own, the server's saved values may be the
    /// user's: a new stream keeps them.
    @Test func valuesAnotherStreamHasAsItsUsersOwnStayTheNewStreamsUsersValues() {
        var ledger = Self.ledger()
        let key = "sink-input-by-media-role:music"
        let mutedByTheUser = StreamOrigin.sinkInput(7)
        _ = ledger.observe(mutedByTheUser, volume: Self.seventy, muted: true, device: 0, restoreKey: key)
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        let next = StreamOrigin.sinkInput(9)
        let report = ledger.observe(next, volume: Self.seventy, muted: true, device: 0, restoreKey: key)
        #expect(report.0 == .nothingNew && report.1.isEmpty)
        #expect(ledger.entries[next]?.userMuted == true)
        #expect(ledger.apply(Self.audible, to: next, device: nil) == [])
        // A stream of the key the user turned down to 0 likewise: a next one at 0 keeps it, though the policy
        // silences the first.
        var silenced = Self.ledger()
        _ = silenced.observe(mutedByTheUser, volume: Self.seventy, muted: false, device: 0, restoreKey: key)
        _ = silenced.observe(mutedByTheUser, volume: Self.zero, muted: false, device: 0, restoreKey: key)
        Self.perform(silenced.apply(Self.silent, to: Self.stream, device: nil), on: &silenced)
        #expect(silenced.observe(next, volume: Self.zero, muted: false, device: 0, restoreKey: key).0 == .nothingNew)
        #expect(silenced.entries[next]?.userVolume == Self.zero)
    }

    /// Another stream of the same app that was already playing is never taken for the next one, even when
    /// its values happen to be what the policy left.
    @Test func aStreamAlreadyKnownIsNotTakenForTheNextOne() {
        var ledger = Self.ledger()
        let other = StreamOrigin.sinkInput(7)
        let key = "sink-input-by-media-role:music"
        _ = ledger.observe(other, volume: Self.seventy.scaled(by: 0.25), muted: false, device: 0, restoreKey: key)
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        _ = ledger.remove(Self.stream)
        let report = ledger.observe(other, volume: Self.seventy.scaled(by: 0.25), muted: false, device: 0, restoreKey: key)
        #expect(report.0 == .nothingNew && report.1.isEmpty)
        #expect(ledger.entries[other]?.userVolume == Self.seventy.scaled(by: 0.25))
        #expect(ledger.leftBehind.count == 1, "kept for the app's next stream")
    }

    /// A next stream that starts with other values (PulseAudio's saved state was mended, or the user set them)
    /// keeps them, and the leftover is forgotten: it is never applied to a later stream.
    @Test func aNextStreamWithOtherValuesKeepsThemAndTheLeftoverIsForgotten() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        _ = ledger.remove(Self.stream)
        let key = "sink-input-by-media-role:music"
        let mended = ledger.observe(.sinkInput(9), volume: Self.seventy, muted: false, device: 0, restoreKey: key)
        #expect(mended.0 == .nothingNew && mended.1.isEmpty)
        #expect(ledger.leftBehind.isEmpty)
        let later = ledger.observe(.sinkInput(10), volume: Self.seventy.scaled(by: 0.25), muted: false, device: 0, restoreKey: key)
        #expect(later.0 == .nothingNew && later.1.isEmpty)
    }

    /// The policy's silence is a volume of 0: the mute flag is never written, so it is the user's alone.
    @Test func aPolicySilenceNeverTouchesTheUsersMute() {
        var ledger = Self.ledger(muted: true)
        let silence = ledger.apply(Self.silent, to: Self.stream, device: nil)
        #expect(silence == [.volume(Self.stream, Self.zero)])
        Self.perform(silence, on: &ledger)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [.volume(Self.stream, Self.seventy)])
        #expect(ledger.entries[Self.stream]?.userMuted == true)
    }

    /// The hold wins while it lasts: a user's unmute is the user's for after it, and writes nothing now (the
    /// stream is at 0); a volume the user sets is put back to 0 at once.
    @Test func anUnmuteOrAVolumeByTheUserDuringAHoldIsRememberedButTheStreamStaysSilent() {
        var ledger = Self.ledger(muted: true)
        Self.perform(ledger.apply(Self.silent, to: Self.stream, device: nil), on: &ledger)
        let unmute = ledger.observe(Self.stream, volume: Self.zero, muted: false, device: 0, restoreKey: nil)
        #expect(unmute.0 == .nothingNew && unmute.1 == [])
        let volume = ledger.observe(Self.stream, volume: Self.fifty, muted: false, device: 0, restoreKey: nil)
        #expect(volume.0 == .userSetVolume && volume.1 == [.volume(Self.stream, Self.zero)])
        Self.perform(volume.1, on: &ledger)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [.volume(Self.stream, Self.fifty)])
        #expect(ledger.entries[Self.stream]?.userMuted == false)
    }

    @Test func aStreamTheServerMovesIsHeldSilentUntilTheNextVerdict() {
        var ledger = Self.ledger()
        let (observation, writes) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 9, restoreKey: nil)
        #expect(observation == .movedByServer)
        #expect(writes == [.volume(Self.stream, Self.zero)])
        Self.perform(writes, on: &ledger)
        #expect(ledger.apply(Self.audible, to: Self.stream, device: 9) == [.volume(Self.stream, Self.seventy)])
    }

    /// A volume the user sets while the policy ducks (or fades) is said to be the user's, so the connection
    /// stops a fade that would write over it; the policy's own writes coming back are nothing new.
    @Test func aVolumeTheUserSetsIsToldApartFromThePolicysOwn() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        let written = ledger.entries[Self.stream]!.writtenVolume
        let own = ledger.observe(Self.stream, volume: written, muted: false, device: 0, restoreKey: nil)
        #expect(own.0 == .nothingNew)
        let fifty = PulseVolume(channels: [32768, 32768])
        let users = ledger.observe(Self.stream, volume: fifty, muted: false, device: 0, restoreKey: nil)
        #expect(users.0 == .userSetVolume)
        #expect(ledger.entries[Self.stream]?.userVolume == fifty)
    }

    @Test func aMoveThePolicyAskedForIsNotHeld() {
        var ledger = Self.ledger()
        #expect(ledger.apply(Self.audible, to: Self.stream, device: 3) == [.move(Self.stream, toDevice: 3)])
        let (observation, writes) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 3, restoreKey: nil)
        #expect(observation == .nothingNew)
        #expect(writes == [])
    }

    @Test func shutdownGivesBackTheUsersValuesAndAnEndedStreamSaysWhetherThePolicyHadAValueInForce() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.ducked, to: Self.stream, device: nil), on: &ledger)
        Self.perform(ledger.apply(Self.silent, to: Self.stream, device: nil), on: &ledger)
        #expect(ledger.restoreAll() == [.volume(Self.stream, Self.seventy)])
        #expect(ledger.remove(Self.stream) == nil)
        var other = Self.ledger()
        Self.perform(other.apply(Self.silent, to: Self.stream, device: nil), on: &other)
        #expect(other.remove(Self.stream)?.restoreKey == "sink-input-by-media-role:music")
    }

    // MARK: The user's values during a hold

    /// A stream as the server has it, changed by the ledger's writes and by the user.
    struct ServerStream: Equatable, CustomStringConvertible {
        var volume: PulseVolume
        var muted: Bool
        var device: UInt32 = 0
        /// What is heard: nothing at volume 0 or muted, whichever made it so.
        var isSilenced: Bool { muted || volume.average == 0 }
        var description: String { "\(volume) \(muted ? "muted" : "unmuted") on \(device)" }

        /// Makes `writes` as the session does (one at a time, noting volumes), then reports the result once,
        /// as the server's change event would; the report of the ledger's own writes asks for nothing more.
        mutating func make(_ writes: [StreamLedger.Write], on ledger: inout StreamLedger) {
            for write in writes {
                switch write {
                case .volume(let origin, let volume):
                    ledger.noteWritten(volume, for: origin)
                    self.volume = volume
                case .mute(_, let muted): self.muted = muted
                case .move(_, let device): self.device = device
                }
            }
            let (_, more) = ledger.observe(StreamLedgerTests.stream, volume: volume, muted: muted, device: device, restoreKey: nil)
            #expect(more.isEmpty, "the ledger's own writes came back as someone else's: \(more)")
        }
    }

    /// What the user does with a stream's volume and mute (a mixer app, `pactl`).
    enum UserAct: Sendable, CustomStringConvertible {
        case mutes, unmutes
        case setsVolume(PulseVolume)
        var description: String {
            switch self {
            case .mutes: "mutes"
            case .unmutes: "unmutes"
            case .setsVolume(let volume): "sets \(volume)"
            }
        }
    }

    /// How the policy holds the stream: a verdict, or the hold after a server move.
    enum Hold: Sendable, CustomStringConvertible {
        case verdict(StreamVerdict)
        case serverMove
        var description: String {
            switch self {
            case .verdict(let verdict): "\(verdict.level)"
            case .serverMove: "held after a server move"
            }
        }
        var silences: Bool {
            if case .verdict(let verdict) = self, case .ducked = verdict.level { return false }
            return true
        }
    }

    struct HoldCase: Sendable, CustomTestStringConvertible {
        var hold: Hold
        var mutedBefore = false
        var acts: [UserAct]
        /// Whether the stream is silent after the user's acts, while the hold lasts.
        var silentDuring: Bool
        var after: (volume: PulseVolume, muted: Bool)
        var testDescription: String {
            "\(hold), \(mutedBefore ? "muted" : "unmuted") before, the user \(acts.map(\.description).joined(separator: ", then "))"
        }
    }

    static let fifty = PulseVolume(channels: [32768, 32768])

    /// The user's mute and volume stay apart from the policy's hold (docs/RELIABILITY.md, "The user's values
    /// during a hold"): what the user sets during a hold is what the stream has after it; the hold wins while
    /// it lasts (an unmute or a volume does not make a held stream heard), as on iOS.
    static let holdCases: [HoldCase] = [
        HoldCase(hold: .verdict(silent), acts: [.mutes], silentDuring: true, after: (seventy, true)),
        HoldCase(hold: .verdict(silent), acts: [.setsVolume(fifty)], silentDuring: true, after: (fifty, false)),
        HoldCase(hold: .verdict(silent), mutedBefore: true, acts: [.unmutes], silentDuring: true, after: (seventy, false)),
        HoldCase(hold: .verdict(silent), acts: [.mutes, .setsVolume(fifty)], silentDuring: true, after: (fifty, true)),
        HoldCase(hold: .verdict(silent), acts: [.mutes, .unmutes], silentDuring: true, after: (seventy, false)),
        HoldCase(hold: .verdict(ducked), acts: [.mutes], silentDuring: true, after: (seventy, true)),
        HoldCase(hold: .verdict(ducked), acts: [.setsVolume(fifty)], silentDuring: false, after: (fifty, false)),
        HoldCase(hold: .serverMove, acts: [.mutes], silentDuring: true, after: (seventy, true)),
        HoldCase(hold: .serverMove, acts: [.setsVolume(fifty)], silentDuring: true, after: (fifty, false)),
    ]

    @Test(arguments: holdCases) func whatTheUserSetsDuringAHoldIsWhatTheStreamHasAfterIt(_ holdCase: HoldCase) {
        var ledger = Self.ledger(muted: holdCase.mutedBefore)
        var server = ServerStream(volume: Self.seventy, muted: holdCase.mutedBefore)
        switch holdCase.hold {
        case .verdict(let verdict):
            server.make(ledger.apply(verdict, to: Self.stream, device: nil), on: &ledger)
        case .serverMove:
            server.device = 9
            let (observation, hold) = ledger.observe(Self.stream, volume: server.volume, muted: server.muted, device: 9, restoreKey: nil)
            #expect(observation == .movedByServer)
            server.make(hold, on: &ledger)
        }
        #expect(server.isSilenced == holdCase.hold.silences, "held: \(server)")
        for act in holdCase.acts {
            switch act {
            case .mutes: server.muted = true
            case .unmutes: server.muted = false
            case .setsVolume(let volume): server.volume = volume
            }
            let (_, writes) = ledger.observe(Self.stream, volume: server.volume, muted: server.muted, device: server.device, restoreKey: nil)
            server.make(writes, on: &ledger)
        }
        #expect(server.isSilenced == holdCase.silentDuring, "during the hold, after the user's acts: \(server)")
        #expect(ledger.entries[Self.stream]?.userMuted == holdCase.after.muted)
        #expect(ledger.entries[Self.stream]?.userVolume == holdCase.after.volume)
        server.make(ledger.apply(Self.audible, to: Self.stream, device: server.device), on: &ledger)
        #expect(server.volume == holdCase.after.volume && server.muted == holdCase.after.muted, "after the hold: \(server)")
        // Shutdown gives back the same.
        server.make(ledger.restoreAll(), on: &ledger)
        #expect(server.volume == holdCase.after.volume && server.muted == holdCase.after.muted, "after shutdown: \(server)")
    }

    @Test func aFadeEndsExactlyOnItsTarget() {
        let steps = StreamLedger.fadeSteps(from: Self.seventy, to: PulseVolume(channels: [100, 100]), milliseconds: 200)
        #expect(steps.count == 8)
        #expect(steps.last == PulseVolume(channels: [100, 100]))
    }
}
