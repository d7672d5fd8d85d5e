import AudioSessionPolicy
import Testing

/// D8 in the engine: a session the daemon decided by identity (`callExemptByIdentity`) is exempt from A2 by that
/// decision only; its name in `callExemptApps` does not count, at creation or after a reload, until the daemon
/// decides again (`callExemptionDecided`).
@Suite struct CallExemptionByIdentityTests {
    @Test func aDecidedSessionIgnoresItsNameUntilTheDaemonDecidesAgain() {
        var named = PolicyConfig.standard
        named.callExemptApps = ["orca"]
        var engine = PolicyEngine(config: named)
        var claimer = T.app("orca", .playback)
        claimer.callExemptByIdentity = false
        _ = engine.handle(.sessionCreated(T.phone, T.app("phone", .playAndRecord, call: true)))
        _ = engine.handle(.sessionCreated(T.game, claimer))
        _ = engine.handle(.sessionCreated(T.music, T.app("orca", .playback)))  // a scenario's session: by name
        _ = engine.handle(.activate(T.phone))
        #expect(engine.handle(.activate(T.game)).error?.code == .insufficientPriority, "its name grants nothing")
        #expect(engine.handle(.activate(T.music)).error == nil, "a session named in a scenario is exempt")
        _ = engine.handle(.configurationChanged(named))
        #expect(engine.handle(.activate(T.game)).error?.code == .insufficientPriority, "nor after a reload")
        _ = engine.handle(.callExemptionDecided(T.game, exempt: true))
        #expect(engine.handle(.activate(T.game)).error == nil, "the daemon's word")
    }
}
