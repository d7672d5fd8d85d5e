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

    /// A verdict that cannot be journaled (full disk): of muted -> ducked only the unmute is made; the duck waits,
    /// and is made by the verdict tried again.
    @Test func ofAVerdictThatWaitsForTheJournalOnlyWhatGivesBackIsMade() {
        var ledger = Self.ledger()
        Self.perform(ledger.apply(Self.silent, to: Self.stream, device: nil), on: &ledger)
        let before = ledger.entries[Self.stream]
        _ = ledger.apply(Self.ducked, to: Self.stream, device: nil)
        ledger.putBack(before, for: Self.stream)
        #expect(ledger.giveBack(Self.ducked, to: Self.stream, device: nil) == [.mute(Self.stream, false)])
        #expect(ledger.apply(Self.ducked, to: Self.stream, device: nil) == [.volume(Self.stream, Self.seventy.scaled(by: 0.25))])
        // Nothing to give back of a mute; and an unmute waits for the move the verdict also asks.
        var muting = Self.ledger()
        #expect(muting.giveBack(Self.silent, to: Self.stream, device: nil) == [])
        var moving = Self.ledger()
        Self.perform(moving.apply(Self.silent, to: Self.stream, device: nil), on: &moving)
        #expect(moving.giveBack(Self.audible, to: Self.stream, device: 7) == [])
    }

    /// A hold after a server move that could not be made (full disk) is not taken for made: the policy's stop
    /// that follows writes the mute.
    @Test func aHoldThatWasNotMadeIsMadeByTheNextVerdict() {
        var ledger = Self.ledger()
        let (observation, hold) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 3, restoreKey: nil)
        #expect(observation == .movedByServer && hold == [.mute(Self.stream, true)])
        ledger.notMade(.mute(Self.stream, true))
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.mute(Self.stream, true)])
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

    /// A stream that ends muted by the policy: the next one that comes muted is unmuted, unless the policy
    /// silences it now (then only the user's values change under the policy's mute).
    @Test func aMuteThePolicyLeftIsTakenBackButThePolicysMuteNow() {
        var ledger = Self.ledger()
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.mute(Self.stream, true)])
        _ = ledger.remove(Self.stream)
        let next = StreamOrigin.sinkInput(9)
        let key = "sink-input-by-media-role:music"
        let restored = ledger.observe(next, volume: Self.seventy, muted: true, device: 0, restoreKey: key)
        #expect(restored.0 == .policyValuesTakenBack && restored.1.isEmpty)
        #expect(ledger.entries[next]?.userMuted == false)
        #expect(ledger.apply(Self.silent, to: next, device: nil) == [], "a call now: it stays muted")
        #expect(ledger.apply(Self.audible, to: next, device: nil) == [.mute(next, false)])
    }

    /// The server saves a stream's values per restore key as they change, the policy's too (WirePlumber's
    /// restore-stream keys music by its role, so two music players share a key), and starts a new stream of
    /// that key with them. A stream that starts with the policy's mute of another stream of its kind still
    /// held muted (a second player started during a call) gets that stream's user values: it is unmuted when
    /// its own verdict lets it be heard. Live: p-player-pressed-during-a-call... on PipeWire.
    @Test func aStreamThatStartsWithThePolicysValuesOfAnotherOfItsKindGetsItsUsersValues() {
        var ledger = Self.ledger()
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.mute(Self.stream, true)])
        let second = StreamOrigin.sinkInput(9)
        let key = "sink-input-by-media-role:music"
        let linking = ledger.observe(second, volume: PulseVolume(channels: [0, 0]), muted: false, device: StreamLedger.noDevice, restoreKey: key)
        #expect(linking.0 == .nothingNew && linking.1.isEmpty)
        let restored = ledger.observe(second, volume: Self.seventy, muted: true, device: 0, restoreKey: key)
        #expect(restored.0 == .policyValuesOfAnotherStreamTakenBack && restored.1.isEmpty)
        #expect(ledger.entries[second]?.userMuted == false)
        #expect(ledger.apply(Self.silent, to: second, device: nil) == [], "during the call it stays muted")
        #expect(ledger.apply(Self.audible, to: second, device: nil) == [.mute(second, false)])
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
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.mute(Self.stream, true)])
        let next = StreamOrigin.sinkInput(9)
        let report = ledger.observe(next, volume: Self.seventy, muted: true, device: 0, restoreKey: key)
        #expect(report.0 == .nothingNew && report.1.isEmpty)
        #expect(ledger.entries[next]?.userMuted == true)
        #expect(ledger.apply(Self.audible, to: next, device: nil) == [])
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

    @Test func aPolicyMuteNeverUndoesTheUsersMute() {
        var ledger = Self.ledger(muted: true)
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [])
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [])
        #expect(ledger.entries[Self.stream]?.userMuted == true)
    }

    @Test func anUnmuteByTheUserWhileThePolicyKeepsItSilentIsRememberedButTheStreamStaysMuted() {
        var ledger = Self.ledger()
        #expect(ledger.apply(Self.silent, to: Self.stream, device: nil) == [.mute(Self.stream, true)])
        let (_, writes) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 0, restoreKey: nil)
        #expect(writes == [.mute(Self.stream, true)])
        #expect(ledger.apply(Self.audible, to: Self.stream, device: nil) == [.mute(Self.stream, false)])
    }

    @Test func aStreamTheServerMovesIsHeldMutedUntilTheNextVerdict() {
        var ledger = Self.ledger()
        let (observation, writes) = ledger.observe(Self.stream, volume: Self.seventy, muted: false, device: 9, restoreKey: nil)
        #expect(observation == .movedByServer)
        #expect(writes == [.mute(Self.stream, true)])
        #expect(ledger.apply(Self.audible, to: Self.stream, device: 9) == [.mute(Self.stream, false)])
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
        _ = ledger.apply(Self.silent, to: Self.stream, device: nil)
        #expect(Set(ledger.restoreAll()) == [.volume(Self.stream, Self.seventy), .mute(Self.stream, false)])
        #expect(ledger.remove(Self.stream) == nil)
        var other = Self.ledger()
        _ = other.apply(Self.silent, to: Self.stream, device: nil)
        #expect(other.remove(Self.stream)?.restoreKey == "sink-input-by-media-role:music")
    }

    @Test func aFadeEndsExactlyOnItsTarget() {
        let steps = StreamLedger.fadeSteps(from: Self.seventy, to: PulseVolume(channels: [100, 100]), milliseconds: 200)
        #expect(steps.count == 8)
        #expect(steps.last == PulseVolume(channels: [100, 100]))
    }
}
