import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Testing

@testable import AudioSessionDaemon

/// The ALSA mixer control as the core drives it (no sound server): the silent switch holds it muted while
/// nothing that may be heard plays, `setVolume` sets the system volume, outside changes are the user's.
@Suite struct MixerCoreTests {
    typealias Core = DaemonCoreTests
    static let music = DaemonCoreTests.music
    static let phone = DaemonCoreTests.phone

    static func mixerEffects(_ effects: [DaemonEffect]) -> [DaemonEffect] {
        effects.filter {
            switch $0 {
            case .holdMixerMuted, .setMixerVolume: true
            default: false
            }
        }
    }

    static func coreWithMixer(volume: Double = 0.6) -> DaemonCore {
        var core = Core.core()
        _ = core.handle(.sound(.mixerVolume(volume)))
        return core
    }

    @Test func theSilentSwitchHoldsTheMixerOnlyWhileNothingThatMayBeHeardPlays() {
        var core = Self.coreWithMixer()
        #expect(
            Self.mixerEffects(
                core.handle(.request(Self.phone, Core.request(.setSilentSwitch(.silent))))
            ) == [.holdMixerMuted(true)]
        )
        #expect(core.status().mixerMuted == true)
        // A game (soloAmbient) starting is silenced by the switch: the control stays held.
        _ = core.handle(
            .request(
                Self.phone,
                Core.request(.startStream(1, direction: .output))
            )
        )
        #expect(core.status().mixerMuted == true)
        // Music (playback) the switch spares starts: the control is given back for it.
        _ = core.handle(.request(Self.music, Core.request(.setCategory(.playback))))
        #expect(
            Self.mixerEffects(
                core.handle(
                    .request(
                        Self.music,
                        Core.request(.startStream(1, direction: .output))
                    )
                )
            ) == [.holdMixerMuted(false)]
        )
        // It pauses: held again; the switch goes to ring: given back.
        #expect(
            Self.mixerEffects(core.handle(.request(Self.music, Core.request(.pauseStream(1))))) == [
                .holdMixerMuted(true)
            ]
        )
        #expect(
            Self.mixerEffects(core.handle(.request(Self.phone, Core.request(.setSilentSwitch(.ring)))))
                == [.holdMixerMuted(false)]
        )
        #expect(core.status().mixerMuted == false)
    }

    @Test func withoutAMixerNothingIsHeldAndSetVolumeIsRefusedWithTheReason() {
        var core = Core.core()
        #expect(
            Self.mixerEffects(
                core.handle(.request(Self.phone, Core.request(.setSilentSwitch(.silent))))
            ) == []
        )
        let effects = core.handle(.request(Self.phone, Core.request(.setVolume(0.5))))
        let reply = Core.replies(effects, to: Self.phone).first
        #expect(reply?.error?.code == "badParam")
        #expect(reply?.error?.message.contains("no mixer control") == true)
        #expect(core.status().volume == nil)
    }

    @Test func setVolumeSetsTheSystemVolumeAndOutsideChangesBecomeIt() {
        var core = Self.coreWithMixer(volume: 0.6)
        #expect(core.status().volume == 0.6)
        let effects = core.handle(.request(Self.phone, Core.request(.setVolume(0.3))))
        #expect(Self.mixerEffects(effects) == [.setMixerVolume(0.3)])
        #expect(Core.replies(effects, to: Self.phone).first?.ok == true)
        #expect(core.status().volume == 0.3)
        _ = core.handle(.sound(.mixerVolume(0.8)))
        #expect(core.status().volume == 0.8)
        _ = core.handle(.sound(.mixerGone(reason: "card removed")))
        #expect(core.status().volume == nil)
    }

    @Test func setVolumeIsAControlRequestAndItsLevelIsChecked() throws {
        #expect(throws: ProtocolError.self) {
            try Request.decode(line: Array(#"{"op":"setVolume","volume":1.5}"#.utf8))
        }
        #expect(throws: ProtocolError.self) {
            try Request.decode(line: Array(#"{"op":"setVolume","volume":"loud"}"#.utf8))
        }
        let request = try Request.decode(line: Array(#"{"op":"setVolume","volume":0.25}"#.utf8))
        #expect(request.command == .setVolume(0.25))
        #expect(request.op.isControl)
        #expect(try Request.decode(line: Array(LineCoding.encode(request).utf8)) == request)
    }
}

/// The user's own mixer values apart from the daemon's hold.
@Suite struct MixerLedgerTests {
    typealias Reading = MixerLedger.Reading

    @Test func holdingMutesAndGivingBackRestoresTheUsersValues() {
        var ledger = MixerLedger(hasSwitch: true, reading: Reading(muted: false, volume: 0.7))
        #expect(ledger.hold(true) == Reading(muted: true, volume: 0.7))
        #expect(ledger.observe(Reading(muted: true, volume: 0.7)) == .unchanged)
        #expect(ledger.hold(true) == nil)
        #expect(ledger.hold(false) == Reading(muted: false, volume: 0.7))
    }

    @Test func theUsersOwnMuteIsNeverUndone() {
        var ledger = MixerLedger(hasSwitch: true, reading: Reading(muted: true, volume: 0.7))
        #expect(ledger.hold(true) == nil)
        #expect(ledger.hold(false) == nil)
        #expect(ledger.wanted.muted)
    }

    @Test func aVolumeChangedWhileHeldIsKeptAndAnUnmuteEndsTheHold() {
        var ledger = MixerLedger(hasSwitch: true, reading: Reading(muted: false, volume: 0.7))
        _ = ledger.hold(true)
        #expect(
            ledger.observe(Reading(muted: true, volume: 0.4)) == .changedByUser(volumeChanged: true, holdEnded: false)
        )
        #expect(ledger.hold(false) == Reading(muted: false, volume: 0.4))
        _ = ledger.hold(true)
        #expect(
            ledger.observe(Reading(muted: false, volume: 0.4)) == .changedByUser(volumeChanged: false, holdEnded: true)
        )
        #expect(!ledger.held)
        #expect(ledger.hold(false) == nil)
    }

    @Test func aControlWithNoSwitchIsHeldAtVolumeZeroAndGivenBackItsVolume() {
        var ledger = MixerLedger(hasSwitch: false, reading: Reading(muted: false, volume: 0.5))
        #expect(ledger.hold(true) == Reading(muted: false, volume: 0))
        #expect(ledger.setVolume(0.9) == nil)
        #expect(ledger.hold(false) == Reading(muted: false, volume: 0.9))
    }

    @Test func aReadBackOneStepOffIsNotTakenForTheUser() {
        var ledger = MixerLedger(hasSwitch: true, reading: Reading(muted: false, volume: 0.7))
        #expect(ledger.setVolume(0.5) == Reading(muted: false, volume: 0.5))
        ledger.wrote(Reading(muted: false, volume: 0.516))
        #expect(ledger.observe(Reading(muted: false, volume: 0.516)) == .unchanged)
    }
}

extension MixerCoreTests {
    @Test func aUserWhoUnmutesWhileHeldIsLeftSoUntilTheSwitchsNextDecision() {
        var core = Self.coreWithMixer()
        let silent = Core.request(.setSilentSwitch(.silent))
        let ring = Core.request(.setSilentSwitch(.ring))
        _ = core.handle(.request(Self.phone, silent))
        #expect(core.status().mixerMuted == true)
        #expect(Self.mixerEffects(core.handle(.sound(.mixerReleasedByUser))) == [])
        #expect(core.status().mixerMuted == false)
        // Anything else happening (a game starting, silenced) does not hold it again behind the user's back.
        #expect(
            Self.mixerEffects(
                core.handle(
                    .request(
                        Self.phone,
                        Core.request(.startStream(1, direction: .output))
                    )
                )
            ) == []
        )
        // The switch's next decision: ring gives back (nothing to do), silent holds again.
        #expect(Self.mixerEffects(core.handle(.request(Self.phone, ring))) == [])
        #expect(Self.mixerEffects(core.handle(.request(Self.phone, silent))) == [.holdMixerMuted(true)])
    }
}
