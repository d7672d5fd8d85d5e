import Testing

@testable import AudioSessionPlayback

/// Transcripts of how a player obeys its session: inputs in, actions out.
@Suite struct TransportRulesTests {
    @Test func aPodcastPausesForACallAndResumesOnlyWhenToldItMay() {
        var rules = TransportRules(controls: .media, appliesGain: false)
        #expect(rules.handle(.play) == [.start])
        #expect(rules.handle(.interruptionBegan) == [.pause])
        #expect(rules.state == .interrupted)
        #expect(rules.handle(.interruptionEnded(shouldResume: true)) == [.start])
        #expect(rules.state == .playing)
        #expect(rules.handle(.interruptionBegan) == [.pause])
        #expect(rules.handle(.interruptionEnded(shouldResume: false)) == [])
        #expect(rules.state == .paused)
        #expect(rules.handle(.play) == [.start])
    }

    @Test func aGameWithNoControlsResumesAfterEveryInterruption() {
        var rules = TransportRules(controls: .none, appliesGain: false)
        _ = rules.handle(.play)
        #expect(rules.handle(.interruptionBegan) == [.pause])
        #expect(rules.handle(.interruptionEnded(shouldResume: false)) == [.start])
        #expect(rules.state == .playing)
    }

    @Test func onlyAnInterruptionThatPausedItResumesIt() {
        var rules = TransportRules(controls: .none, appliesGain: false)
        _ = rules.handle(.play)
        _ = rules.handle(.pause)
        #expect(rules.handle(.interruptionBegan) == [])
        #expect(rules.handle(.interruptionEnded(shouldResume: true)) == [])
        #expect(rules.state == .paused)
    }

    @Test func pullingOutHeadphonesPausesUntilTheUserPlays() {
        var rules = TransportRules(controls: .media, appliesGain: false)
        _ = rules.handle(.play)
        #expect(rules.handle(.oldDeviceUnavailable) == [.pause])
        #expect(rules.state == .pausedByRouteChange)
        #expect(rules.handle(.interruptionEnded(shouldResume: true)) == [])
        #expect(rules.handle(.play) == [.start])
    }

    @Test func anUnplugDuringAnInterruptionKeepsItFromResuming() {
        var rules = TransportRules(controls: .none, appliesGain: false)
        _ = rules.handle(.play)
        _ = rules.handle(.interruptionBegan)
        #expect(rules.handle(.oldDeviceUnavailable) == [])
        #expect(rules.handle(.interruptionEnded(shouldResume: true)) == [])
        #expect(rules.state == .pausedByRouteChange)
    }

    @Test func verdictsBecomeGainOnlyWhenTheAppAppliesThem() {
        var selfDucking = TransportRules(controls: .media, appliesGain: true)
        _ = selfDucking.handle(.play)
        #expect(
            selfDucking.handle(.verdict(gain: 0.25, fadeMilliseconds: 200)) == [.fadeGain(to: 0.25, milliseconds: 200)]
        )
        #expect(selfDucking.handle(.verdict(gain: 0.25, fadeMilliseconds: 200)) == [])
        #expect(selfDucking.handle(.verdict(gain: 1, fadeMilliseconds: 200)) == [.fadeGain(to: 1, milliseconds: 200)])
        var daemonDucks = TransportRules(controls: .media, appliesGain: false)
        _ = daemonDucks.handle(.play)
        #expect(daemonDucks.handle(.verdict(gain: 0.25, fadeMilliseconds: 200)) == [])
        #expect(daemonDucks.gain == 1)
    }

    @Test func theEndOfTheFileAndAFailedStartStopIt() {
        var rules = TransportRules(controls: .media, appliesGain: false)
        _ = rules.handle(.play)
        #expect(rules.handle(.startFailed) == [.pause])
        #expect(rules.state == .paused)
        _ = rules.handle(.play)
        #expect(rules.handle(.reachedEnd) == [.stop])
        #expect(rules.state == .finished)
        #expect(rules.handle(.play) == [.start])
    }
}
