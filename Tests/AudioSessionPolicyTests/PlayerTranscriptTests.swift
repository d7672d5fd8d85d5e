import AudioSessionPolicy
import Testing

/// POLICY section 6b, one event at a time: the pause and play commands, the player timeout, and what counts as
/// the player obeying and what as the user acting on it. The scenario files show the states; these pin the
/// actions, which a scenario cannot see.
@Suite struct PlayerTranscriptTests {
    static let radio = SessionID(1)
    static let phone = SessionID(2)
    static let radioOut = T.output(of: radio)

    /// A music player (an unaware app declared a player) and a phone app; events 1-2.
    static func playerAndPhone(outputs: [Port] = [.speaker]) -> PolicyEngine {
        var engine = PolicyEngine(outputs: outputs)
        let radio = SessionDeclaration(
            appName: "radio",
            unawareStreamProperties: ["media.role": "music"],
            isMediaPlayer: true
        )
        _ = engine.handle(.sessionCreated(Self.radio, radio))
        _ = engine.handle(.sessionCreated(phone, T.app("phone", .playAndRecord, mode: .voiceChat, call: true)))
        return engine
    }

    static func started() -> PolicyEvent { .streamStarted(radioOut, session: radio, direction: .output) }

    /// P1: the stream is muted in the event that interrupts, and the pause comes after the verdict, with the
    /// player timeout. P2: the pause obeyed cancels the timeout and starts no grace. P3: played after.
    @Test func aCallPausesThePlayerAndItsEndPlaysIt() {
        var engine = Self.playerAndPhone()
        _ = engine.handle(Self.started())  // 3
        let interrupted = Reason(.A6, event: 4, session: Self.phone)
        #expect(
            engine.actions(.activate(Self.phone)) == [
                .notify(Self.radio, .interruptionBegan, interrupted),
                .setStream(Self.radioOut, StreamVerdict(level: .silent, port: .speaker, reason: interrupted)),
                .pausePlayer(Self.radio, Reason(.P1, event: 4, session: Self.phone)),
                .startTimer(TimerID(rawValue: 1), milliseconds: 250),
            ]
        )
        // The player obeys: the timeout is cancelled and no grace timer is asked for (P2).
        #expect(engine.actions(.streamPaused(Self.radioOut)) == [.cancelTimer(TimerID(rawValue: 1))])
        #expect(engine.snapshot(of: Self.radio)?.mediaPlayer == .paused)
        #expect(
            engine.actions(.deactivate(Self.phone, notifyOthers: true)) == [
                .notify(Self.radio, .interruptionEnded(shouldResume: true), Reason(.D3, event: 6, session: Self.phone)),
                // A paused stream is judged too, so that it is right the moment the player plays.
                .setStream(Self.radioOut, StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8))),
                .playPlayer(Self.radio, Reason(.P3, event: 6, session: Self.phone)),
                // Active and idle until the player plays: a player that never does lets go after the grace.
                .startTimer(TimerID(rawValue: 2), milliseconds: 500),
            ]
        )
        #expect(engine.snapshot(of: Self.radio)?.state == .active)
        #expect(engine.actions(Self.started()) == [.cancelTimer(TimerID(rawValue: 2))])
        #expect(engine.snapshot(of: Self.radio)?.output == .audible)
    }

    /// P6: a player that does not pause in time is given up on: no play after the call, no pause at the next one.
    @Test func aPlayerThatDoesNotAnswerIsNeverAskedAgain() {
        var engine = Self.playerAndPhone()
        _ = engine.handle(Self.started())  // 3
        #expect(
            engine.actions(.activate(Self.phone)).contains(
                .pausePlayer(Self.radio, Reason(.P1, event: 4, session: Self.phone))
            )
        )
        #expect(engine.actions(.timerFired(TimerID(rawValue: 1))) == [])  // 5: the timeout, P6
        let ended = engine.actions(.deactivate(Self.phone, notifyOthers: true))  // U3: its stream still runs
        #expect(!ended.contains { if case .playPlayer = $0 { true } else { false } })
        #expect(engine.snapshot(of: Self.radio)?.output == .audible)
        let again = engine.actions(.activate(Self.phone))
        #expect(!again.contains { if case .pausePlayer = $0 { true } else { false } })
        #expect(engine.snapshot(of: Self.radio)?.output == .silent)
        // A pause that arrives late is the user's: it starts the grace, as section 6 says.
        #expect(
            engine.actions(.streamPaused(Self.radioOut)).contains(.startTimer(TimerID(rawValue: 2), milliseconds: 500))
        )
    }

    /// P2, P3: the user stopping the player (its stream gone) during the call is the user acting on it: the
    /// grace starts, and the end of the call does not play it.
    @Test func theUserStoppingThePlayerDuringTheCallIsObeyed() {
        var engine = Self.playerAndPhone()
        _ = engine.handle(Self.started())  // 3
        _ = engine.handle(.activate(Self.phone))  // 4: pause asked, timer 1
        _ = engine.handle(.streamPaused(Self.radioOut))  // 5: obeyed
        #expect(engine.actions(.streamRemoved(Self.radioOut)) == [.startTimer(TimerID(rawValue: 2), milliseconds: 500)])
        let ended = engine.actions(.deactivate(Self.phone, notifyOthers: true))
        #expect(
            ended == [
                .notify(Self.radio, .interruptionEnded(shouldResume: true), Reason(.D3, event: 7, session: Self.phone))
            ]
        )
        #expect(engine.snapshot(of: Self.radio)?.state == .inactive)
    }

    /// P5: the user pressing play during the call settles the daemon's pause: the stream runs silent, and when
    /// the call ends U3 activates the session as for any unaware app; the daemon sends no play of its own.
    @Test func theUserPlayingDuringTheCallIsNotPlayedAgainByTheDaemon() {
        var engine = Self.playerAndPhone()
        _ = engine.handle(Self.started())  // 3
        _ = engine.handle(.activate(Self.phone))  // 4
        _ = engine.handle(.streamPaused(Self.radioOut))  // 5: obeyed
        let pressed = engine.handle(Self.started())  // 6: the user presses play
        #expect(pressed.error?.code == .insufficientPriority)
        #expect(pressed.actions.allSatisfy { if case .pausePlayer = $0 { false } else { true } })
        #expect(engine.snapshot(of: Self.radio)?.output == .silent)
        #expect(
            engine.actions(.deactivate(Self.phone, notifyOthers: true)) == [
                .notify(Self.radio, .interruptionEnded(shouldResume: true), Reason(.D3, event: 7, session: Self.phone)),
                .setStream(Self.radioOut, StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8))),
            ]
        )
        #expect(engine.snapshot(of: Self.radio)?.stateReason.rule == .U3)
    }

    /// P1 and P4: a pause for route loss comes after the verdict that stops the stream; obeyed, it starts the
    /// grace (unlike a pause for an interruption), and nothing ever plays the player again.
    @Test func anUnplugPausesThePlayerForGood() {
        var engine = Self.playerAndPhone(outputs: [.speaker, .headphones])
        _ = engine.handle(Self.started())  // 3
        let lost = Reason(.R4, event: 4, port: .headphones)
        #expect(
            engine.actions(.portDisconnected(.headphones)) == [
                .notify(
                    Self.radio,
                    .routeChange(.oldDeviceUnavailable, previous: Route(output: .headphones, input: nil)),
                    lost
                ),
                .setStream(Self.radioOut, StreamVerdict(level: .silent, port: .speaker, reason: lost)),
                .pausePlayer(Self.radio, Reason(.P1, event: 4, port: .headphones)),
                .startTimer(TimerID(rawValue: 1), milliseconds: 250),
            ]
        )
        #expect(
            engine.actions(.streamPaused(Self.radioOut)) == [
                .cancelTimer(TimerID(rawValue: 1)), .startTimer(TimerID(rawValue: 2), milliseconds: 500),
            ]
        )
        _ = engine.handle(.timerFired(TimerID(rawValue: 2)))  // U2: inactive
        #expect(
            engine.actions(.portConnected(.headphones)).allSatisfy { if case .playPlayer = $0 { false } else { true } }
        )
        #expect(engine.snapshot(of: Self.radio)?.mediaPlayer == .paused)
    }

    /// A session that is not a player is never paused: P1 is for players only, and says nothing of its
    /// `mediaPlayer` state.
    @Test func anUnawareAppThatIsNoPlayerIsOnlyMuted() {
        var engine = PolicyEngine()
        _ = engine.handle(
            .sessionCreated(
                Self.radio,
                SessionDeclaration(appName: "radio", unawareStreamProperties: ["media.role": "music"])
            )
        )
        _ = engine.handle(.sessionCreated(Self.phone, T.app("phone", .playAndRecord, mode: .voiceChat, call: true)))
        _ = engine.handle(Self.started())
        let actions = engine.actions(.activate(Self.phone))
        #expect(!actions.contains { if case .pausePlayer = $0 { true } else { false } })
        #expect(engine.snapshot(of: Self.radio)?.mediaPlayer == nil)
    }

    /// P1, P2 when a call ends before the player has obeyed the pause it was asked for: the event that ends the
    /// call resumes the player (P3) and interrupts it again (a video app resumed after it takes over, A4). Its
    /// stream still runs, so this is a new interruption of a running player: the daemon asks for a pause again,
    /// with a timeout of its own, and the stream's stop that follows is that pause obeyed, not the user's (no
    /// grace: the session stays interrupted). Live, the replay of
    /// p-player-taken-over-again-in-the-event-that-resumes-it-stays-paused.yaml ran its steps faster than mpv
    /// paused, and the daemon let the grace end the player's session.
    @Test func aPlayerResumedAndTakenOverBeforeItPausedIsPausedAgainAndHeld() {
        var engine = Self.playerAndPhone()
        let tv = SessionID(3)
        let tvOut = T.output(of: tv)
        _ = engine.handle(
            .sessionCreated(tv, SessionDeclaration(appName: "tv", unawareStreamProperties: ["media.role": "video"]))
        )  // 3
        _ = engine.handle(Self.started())  // 4
        let taken = engine.actions(.streamStarted(tvOut, session: tv, direction: .output))  // 5: A4, pause asked
        #expect(taken.contains(.pausePlayer(Self.radio, Reason(.P1, event: 5, session: tv))))
        #expect(taken.contains(.startTimer(TimerID(rawValue: 1), milliseconds: 250)))
        _ = engine.handle(.activate(Self.phone))  // 6: tv interrupted (A6), the radio now waits on the call (D4)
        let ended = engine.actions(.deactivate(Self.phone, notifyOthers: true))  // 7
        #expect(!ended.contains { if case .playPlayer = $0 { true } else { false } })
        #expect(ended.contains(.pausePlayer(Self.radio, Reason(.P1, event: 7, session: tv))))
        #expect(ended.contains(.cancelTimer(TimerID(rawValue: 1))))
        #expect(ended.contains(.startTimer(TimerID(rawValue: 2), milliseconds: 250)))
        #expect(engine.snapshot(of: Self.radio)?.state == .interrupted)
        #expect(engine.snapshot(of: tv)?.state == .active)
        // The player obeys now: its timeout is cancelled and no grace starts (P2).
        #expect(engine.actions(.streamPaused(Self.radioOut)) == [.cancelTimer(TimerID(rawValue: 2))])
        #expect(engine.snapshot(of: Self.radio)?.state == .interrupted)
        #expect(engine.snapshot(of: Self.radio)?.mediaPlayer == .paused)
    }
}
