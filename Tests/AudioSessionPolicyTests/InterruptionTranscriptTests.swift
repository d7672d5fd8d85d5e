import AudioSessionPolicy
import Testing

/// D3 and D4, one event at a time, every action compared.
@Suite struct InterruptionTranscriptTests {
    /// Music and video players and a phone app; events 1-3.
    static func threeApps() -> PolicyEngine {
        var engine = PolicyEngine()
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback)))
        _ = engine.handle(.sessionCreated(T.video, T.app("video", .playback)))
        _ = engine.handle(.sessionCreated(T.phone, T.app("phone", .playAndRecord, mode: .voiceChat, call: true)))
        return engine
    }

    @Test func d3EndsWithShouldResumeOnlyWhenTheCauseNotifiedOthers() {
        var engine = Self.threeApps()
        #expect(engine.actions(.activate(T.music)) == [])  // 4
        #expect(
            engine.actions(.streamStarted(T.output(of: T.music), session: T.music, direction: .output)) == [
                .setStream(T.output(of: T.music), StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8)))
            ]
        )  // 5
        let interrupted = Reason(.A4, event: 6, session: T.video)
        #expect(
            engine.actions(.activate(T.video)) == [
                .notify(T.music, .interruptionBegan, interrupted),
                .setStream(T.output(of: T.music), StreamVerdict(level: .silent, port: .speaker, reason: interrupted)),
            ]
        )
        // The stream stays silent (O2) after the end: the session is inactive until its app activates it.
        #expect(
            engine.actions(.deactivate(T.video, notifyOthers: true)) == [
                .notify(T.music, .interruptionEnded(shouldResume: true), Reason(.D3, event: 7, session: T.video))
            ]
        )
        #expect(engine.snapshot(of: T.music)?.state == .inactive)
        #expect(
            engine.actions(.activate(T.music)) == [
                .setStream(T.output(of: T.music), StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8)))
            ]
        )
        _ = engine.handle(.activate(T.video))  // 9: interrupts music again
        #expect(
            engine.actions(.deactivate(T.video, notifyOthers: false)) == [
                .notify(T.music, .interruptionEnded(shouldResume: false), Reason(.D3, event: 10, session: T.video))
            ]
        )
    }

    @Test func d3ReactivatingWhileInterruptedSendsNoEndedLater() {
        var engine = Self.threeApps()
        _ = engine.handle(.activate(T.music))
        _ = engine.handle(.activate(T.video))  // music interrupted
        let actions = engine.actions(.activate(T.music))  // music takes over again: video is interrupted
        #expect(actions == [.notify(T.video, .interruptionBegan, Reason(.A4, event: 6, session: T.music))])
        // video's deactivation... video is interrupted, so deactivating it is D1: no one is told anything.
        #expect(engine.actions(.deactivate(T.video, notifyOthers: true)) == [])
        #expect(engine.actions(.deactivate(T.music, notifyOthers: true)) == [])
    }

    @Test func d4TheInterruptersInterrupterBecomesTheCause() {
        var engine = Self.threeApps()
        _ = engine.handle(.activate(T.music))  // 4
        _ = engine.handle(.activate(T.video))  // 5: music interrupted by video
        #expect(
            engine.actions(.activate(T.phone)) == [
                .notify(T.video, .interruptionBegan, Reason(.A6, event: 6, session: T.phone))
            ]
        )
        #expect(engine.snapshot(of: T.music)?.interruptedBy == [T.phone])
        #expect(engine.snapshot(of: T.music)?.stateReason == Reason(.D4, event: 6, session: T.phone))
        #expect(
            engine.actions(.deactivate(T.phone, notifyOthers: true)) == [
                .notify(T.music, .interruptionEnded(shouldResume: true), Reason(.D3, event: 7, session: T.phone)),
                .notify(T.video, .interruptionEnded(shouldResume: true), Reason(.D3, event: 7, session: T.phone)),
            ]
        )
    }

    @Test func d4ChainEndsWithoutResumeWhenTheLastCauseDidNotNotify() {
        var engine = Self.threeApps()
        _ = engine.handle(.activate(T.music))
        _ = engine.handle(.activate(T.video))
        _ = engine.handle(.activate(T.phone))
        let ended = engine.handle(.deactivate(T.phone, notifyOthers: false)).actions
        #expect(ended.count == 2)
        #expect(ended.allSatisfy { if case .notify(_, .interruptionEnded(false), _) = $0 { true } else { false } })
    }

    @Test func aSessionRemovedWhileActiveEndsWhatItInterruptedWithoutResume() {
        var engine = Self.threeApps()
        _ = engine.handle(.activate(T.music))
        _ = engine.handle(.activate(T.video))
        #expect(
            engine.actions(.sessionRemoved(T.video)) == [
                .notify(T.music, .interruptionEnded(shouldResume: false), Reason(.D3, event: 6, session: T.video))
            ]
        )
        #expect(engine.snapshot(of: T.video) == nil)
    }
}
