import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Testing

@testable import AudioSessionDaemon

/// The core's side of the platform: feedbackd's profile in, its profile out, the lock in (no D-Bus here).
@Suite struct PlatformCoreTests {
    static let user = DaemonCoreTests.music

    static func switchTo(_ position: SilentSwitch, _ core: inout DaemonCore) -> [DaemonEffect] {
        core.handle(.request(user, DaemonCoreTests.request(.setSilentSwitch(position))))
    }

    static func profileWrites(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap { if case .setFeedbackdProfile(let profile) = $0 { profile } else { nil } }
    }

    @Test func theSwitchFollowsTheProfile() {
        var core = DaemonCoreTests.core()
        _ = core.handle(.platform(.feedbackdProfile("quiet")))
        #expect(core.engine.silentSwitchPosition == .silent)
        _ = core.handle(.platform(.feedbackdProfile("full")))
        #expect(core.engine.silentSwitchPosition == .ring)
        _ = core.handle(.platform(.feedbackdProfile("silent")))
        #expect(core.engine.silentSwitchPosition == .silent)
        // A profile feedbackd does not define leaves the switch as it is, and says so.
        let effects = core.handle(.platform(.feedbackdProfile("loud")))
        #expect(core.engine.silentSwitchPosition == .silent)
        #expect(
            effects.contains(.log("feedbackd: profile 'loud' is not full, quiet or silent; the switch stays silent"))
        )
    }

    @Test func theSocketsSwitchSetsTheProfileOnlyWhenFeedbackdIsThereAndDisagrees() {
        var core = DaemonCoreTests.core()
        #expect(Self.profileWrites(Self.switchTo(.silent, &core)).isEmpty, "no feedbackd: nothing to tell")
        _ = core.handle(.platform(.feedbackdProfile("quiet")))
        #expect(Self.profileWrites(Self.switchTo(.silent, &core)).isEmpty, "quiet is silent already")
        #expect(Self.profileWrites(Self.switchTo(.ring, &core)) == ["full"])
        #expect(Self.profileWrites(Self.switchTo(.silent, &core)) == ["silent"])
        _ = core.handle(.platform(.feedbackdGone))
        #expect(Self.profileWrites(Self.switchTo(.ring, &core)).isEmpty, "feedbackd left")
    }

    /// Silent then ring, quickly: feedbackd reports silent, then full. The first is the daemon's own change
    /// coming back and must not set the switch to silent again.
    @Test func theDaemonsOwnChangesComingBackAreNotFollowed() {
        var core = DaemonCoreTests.core()
        _ = core.handle(.platform(.feedbackdProfile("full")))
        #expect(Self.profileWrites(Self.switchTo(.silent, &core)) == ["silent"])
        #expect(Self.profileWrites(Self.switchTo(.ring, &core)) == ["full"])
        _ = core.handle(.platform(.feedbackdProfile("silent")))
        #expect(core.engine.silentSwitchPosition == .ring)
        _ = core.handle(.platform(.feedbackdProfile("full")))
        #expect(core.engine.silentSwitchPosition == .ring)
        // The user's own change after them is followed.
        _ = core.handle(.platform(.feedbackdProfile("silent")))
        #expect(core.engine.silentSwitchPosition == .silent)
    }

    @Test func theLockFollowsThePlatform() {
        var core = DaemonCoreTests.core()
        let effects = core.handle(.platform(.screenLock(locked: true, source: "logind's LockedHint")))
        #expect(core.engine.isScreenLocked)
        #expect(effects.contains(.log("screen: locked, from logind's LockedHint")))
        #expect(core.handle(.platform(.screenLock(locked: true, source: "logind's Lock signal"))).isEmpty)
        _ = core.handle(.platform(.screenLock(locked: false, source: "logind's Unlock signal")))
        #expect(!core.engine.isScreenLocked)
    }
}
