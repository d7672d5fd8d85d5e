import AudioSessionPolicy
import Testing

/// A7, R1 and R4, one event at a time, every action compared.
@Suite struct HintAndRouteTranscriptTests {
    @Test func a7HintBeginsAndEndsForForegroundMixableSessionsOnly() {
        var engine = PolicyEngine()
        _ = engine.handle(.sessionCreated(T.game, T.app("game", .ambient)))  // 1
        _ = engine.handle(
            .sessionCreated(T.nav, T.app("nav", .playback, options: [.mixWithOthers], appState: .background))
        )  // 2
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback)))  // 3
        _ = engine.handle(.activate(T.game))  // 4
        _ = engine.handle(.activate(T.nav))  // 5
        #expect(engine.snapshot(of: T.game)?.secondaryAudioShouldBeSilencedHint == false)
        // nav is in the background: it gets no hint, though its property turns true.
        #expect(
            engine.actions(.activate(T.music)) == [
                .notify(T.game, .silenceSecondaryAudioHint(begins: true), Reason(.A7, event: 6, session: T.music))
            ]
        )
        #expect(engine.snapshot(of: T.nav)?.secondaryAudioShouldBeSilencedHint == true)
        // App state changes send no hints; nav now in the foreground will get the end it never had a begin for.
        #expect(engine.actions(.appState(T.nav, .foreground)) == [])
        #expect(
            engine.actions(.deactivate(T.music)) == [
                .notify(T.game, .silenceSecondaryAudioHint(begins: false), Reason(.A7, event: 8, session: T.music)),
                .notify(T.nav, .silenceSecondaryAudioHint(begins: false), Reason(.A7, event: 8, session: T.music)),
            ]
        )
    }

    @Test func a7ReplacingOneNonmixableWithAnotherSendsNothing() {
        var engine = PolicyEngine()
        _ = engine.handle(.sessionCreated(T.game, T.app("game", .ambient)))
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback)))
        _ = engine.handle(.sessionCreated(T.video, T.app("video", .playback)))
        _ = engine.handle(.activate(T.game))
        _ = engine.handle(.activate(T.music))
        // video interrupts music: the hint stays true for game, so game hears nothing; music hears its began.
        #expect(
            engine.actions(.activate(T.video)) == [
                .notify(T.music, .interruptionBegan, Reason(.A4, event: 6, session: T.video))
            ]
        )
    }

    @Test func r1PrefersSelectionThenOverrideThenRecentPortThenReceiver() {
        var engine = PolicyEngine(outputs: [.receiver, .speaker])
        _ = engine.handle(.sessionCreated(T.phone, T.app("phone", .playAndRecord, mode: .voiceChat, call: true)))  // 1
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback)))  // 2
        _ = engine.handle(.activate(T.phone))  // 3
        #expect(engine.snapshot(of: T.phone)?.route == Route(output: .receiver, input: .builtInMic))
        #expect(engine.snapshot(of: T.music)?.route.output == .speaker)
        // A2DP is not allowed for a playAndRecord session without allowBluetoothA2DP; HFP is (voiceChat).
        let previous = Route(output: .receiver, input: .builtInMic)
        #expect(engine.actions(.portConnected(.bluetoothA2DP)) == [])
        #expect(engine.snapshot(of: T.music)?.route.output == .bluetoothA2DP)
        #expect(
            engine.actions(.portConnected(.bluetoothHFP)) == [
                .notify(
                    T.phone,
                    .routeChange(.newDeviceAvailable, previous: previous),
                    Reason(.R2, event: 5, port: .bluetoothHFP)
                )
            ]
        )
        #expect(engine.snapshot(of: T.phone)?.route == Route(output: .bluetoothHFP, input: .bluetoothHFP))
        let onBluetooth = Route(output: .bluetoothHFP, input: .bluetoothHFP)
        #expect(
            engine.actions(.outputOverridden(T.phone, .speaker)) == [
                .notify(
                    T.phone,
                    .routeChange(.override, previous: onBluetooth),
                    Reason(.R5, event: 6, session: T.phone)
                )
            ]
        )
        let onSpeaker = Route(output: .speaker, input: .bluetoothHFP)
        #expect(
            engine.actions(.outputSelected(.receiver)) == [
                .notify(T.phone, .routeChange(.override, previous: onSpeaker), Reason(.R3, event: 7, port: .receiver))
            ]
        )
        // The receiver is not for playback: music stays on the most recent port that suits it.
        #expect(engine.snapshot(of: T.music)?.route.output == .bluetoothA2DP)
        #expect(engine.handle(.outputSelected(.hdmi)).error?.code == .badParam)
    }

    @Test func r4StopsPlaybackOnTheLostPortButNotAPlayAndRecordSession() {
        var engine = PolicyEngine(outputs: [.speaker, .headphones])
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback)))  // 1
        _ = engine.handle(
            .sessionCreated(T.phone, T.app("phone", .playAndRecord, options: [.mixWithOthers, .defaultToSpeaker]))
        )  // 2
        _ = engine.handle(.activate(T.music))  // 3
        engine.play(T.music)  // 4
        _ = engine.handle(.activate(T.phone))  // 5
        engine.play(T.phone)  // 6
        let previous = Route(output: .headphones, input: nil)
        let previousPhone = Route(output: .headphones, input: .builtInMic)
        let lost = Reason(.R4, event: 7, port: .headphones)
        #expect(
            engine.actions(.portDisconnected(.headphones)) == [
                .notify(T.music, .routeChange(.oldDeviceUnavailable, previous: previous), lost),
                .notify(T.phone, .routeChange(.oldDeviceUnavailable, previous: previousPhone), lost),
                .setStream(T.output(of: T.music), StreamVerdict(level: .silent, port: .speaker, reason: lost)),
                .setStream(T.output(of: T.phone), StreamVerdict(level: .audible, port: .speaker, reason: Reason(.O8))),
            ]
        )
        // Plugging back in does not restart the stopped stream; the app must play again.
        _ = engine.handle(.portConnected(.headphones))
        #expect(engine.snapshot(of: T.music)?.output == .silent)
        _ = engine.handle(.streamPaused(T.output(of: T.music)))
        #expect(
            engine.actions(.streamStarted(T.output(of: T.music), session: T.music, direction: .output)) == [
                .setStream(
                    T.output(of: T.music),
                    StreamVerdict(level: .audible, port: .headphones, reason: Reason(.O8))
                )
            ]
        )
    }
}

/// A reload keeps every session and stream and applies the new values at once.
@Suite struct ReconfigurationTranscriptTests {
    @Test func aNewDuckLevelAppliesToDuckedStreamsAtOnceAndExemptionsToExistingSessions() {
        var engine = PolicyEngine()
        _ = engine.handle(.sessionCreated(T.music, T.app("music", .playback, options: [.mixWithOthers])))  // 1
        _ = engine.handle(.sessionCreated(T.nav, T.app("nav", .playback, options: [.duckOthers])))  // 2
        _ = engine.handle(.sessionCreated(T.phone, T.app("phone", .playAndRecord, call: true)))  // 3
        _ = engine.handle(.sessionCreated(T.game, T.app("reader", .playback, options: [.mixWithOthers])))  // 4
        engine.play(T.music)  // 5
        _ = engine.handle(.activate(T.nav))  // 6
        var quieter = PolicyConfig.standard
        quieter.duckLevel = 0.1
        quieter.callExemptApps = ["reader"]
        #expect(
            engine.actions(.configurationChanged(quieter)) == [
                .setStream(
                    T.output(of: T.music),
                    StreamVerdict(level: .ducked(gain: 0.1, fadeMilliseconds: 200), port: .speaker, reason: Reason(.O7, session: T.nav))
                )
            ]
        )
        _ = engine.handle(.activate(T.phone))
        #expect(engine.handle(.activate(T.game)).error == nil, "the reader is exempt from A2 after the reload")
        #expect(engine.sessionIDs.count == 4)
    }
}
