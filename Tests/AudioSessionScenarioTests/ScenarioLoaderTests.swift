import AudioSessionConfiguration
import AudioSessionPolicy
import AudioSessionScenario
import Foundation
import Testing

/// Bad input names the problem at its line and column; good input gives the model the file describes.
@Suite struct ScenarioLoaderTests {
    /// The error that loading `yaml` must raise.
    private func loadError(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> ScenarioError
    {
        try #require(throws: ScenarioError.self, sourceLocation: sourceLocation) {
            try ScenarioLoader.parse(yaml: yaml, file: "bad.yaml")
        }
    }

    /// A valid scenario with two sessions; tests replace one line to break it.
    private static let valid = """
        name: two sessions
        sessions:
          music: { category: playback }
          phone: { category: playAndRecord, mode: voiceChat, call: true }
        steps:
          - activate: music
        """

    // MARK: - YAML syntax

    @Test func unclosedBracketIsASyntaxErrorAtItsLine() throws {
        let error = try loadError(
            """
            name: t
            sessions:
              music: { category: playback, options: [mixWithOthers }
            steps:
              - activate: music
            """
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 56))
        #expect(error.message.contains("invalid YAML"))
        #expect(error.message.contains("']'"))
    }

    @Test func badIndentationIsASyntaxErrorAtItsLine() throws {
        let error = try loadError(
            """
            name: t
            sessions:
              music:
                category: playback
               mode: default
            steps:
              - activate: music
            """
        )
        #expect(error.location.line == 5)
        #expect(error.location.column == 4)
        #expect(error.message.contains("invalid YAML"))
    }

    @Test func emptyFileIsAnError() throws {
        let error = try loadError("")
        #expect(error.location == .init(file: "bad.yaml", line: 1, column: 1))
        #expect(error.message.contains("empty"))
        let onlyComments = try loadError("# covers: A4\n\n# nothing else\n")
        #expect(onlyComments.message.contains("empty"))
    }

    @Test func aFileThatIsNotAMappingIsAnError() throws {
        let error = try loadError("- activate: music\n")
        #expect(error.location.line == 1)
        #expect(error.message.contains("scenario: a list is not a mapping; expected a mapping"))
    }

    // MARK: - Top level and sessions

    @Test func unknownTopLevelKeyIsAnErrorAtTheKey() throws {
        let error = try loadError(Self.valid.replacingOccurrences(of: "sessions:", with: "sesions:"))
        #expect(error.location == .init(file: "bad.yaml", line: 2, column: 1))
        #expect(
            error.message == "unknown key 'sesions' in scenario; expected one of: name, config, device, sessions, steps"
        )
    }

    @Test func missingNameIsAnError() throws {
        let error = try loadError(Self.valid.replacingOccurrences(of: "name: two sessions\n", with: ""))
        #expect(error.location.line == 1)
        #expect(error.message.contains("missing key 'name'"))
    }

    @Test func duplicateSessionNamesBothLines() throws {
        let error = try loadError(
            """
            name: t
            sessions:
              music: { category: playback }
              phone: { category: playAndRecord }
              music: { category: ambient }
            steps:
              - activate: music
            """
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 3))
        #expect(error.message.contains("duplicate session 'music'"))
        #expect(error.message.contains("lines 3 and 5"))
    }

    @Test func unknownSessionKeyIsAnErrorAtTheKey() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(of: "music: { category: playback }", with: "music: { catgory: playback }")
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 12))
        #expect(error.message.contains("unknown key 'catgory' in session 'music'"))
        #expect(error.message.contains("category, mode, options, call, appState, stream"))
    }

    @Test func unknownCategoryIsAnErrorAtTheValue() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(of: "music: { category: playback }", with: "music: { category: playbak }")
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 22))
        #expect(error.message.contains("'playbak' is not a category"))
        #expect(error.message.contains("ambient, soloAmbient, playback, record, playAndRecord, audioProcessing"))
    }

    @Test func unknownModeIsAnErrorAtTheValue() throws {
        let error = try loadError(Self.valid.replacingOccurrences(of: "mode: voiceChat", with: "mode: voicechat"))
        #expect(error.location == .init(file: "bad.yaml", line: 4, column: 43))
        #expect(error.message.contains("'voicechat' is not a mode"))
        #expect(error.message.contains("voiceChat"))
    }

    @Test func unknownOptionIsAnErrorAtTheOption() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { category: playback, options: [mixWithOthers, duckOther] }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 57))
        #expect(error.message.contains("'duckOther' is not an option"))
        #expect(error.message.contains("duckOthers"))
    }

    @Test func illegalOptionForTheCategoryNamesBoth() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { category: playback, options: [defaultToSpeaker] }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 42))
        #expect(error.message.contains("option 'defaultToSpeaker' is not allowed with category 'playback'"))
        #expect(error.message.contains("playAndRecord"))
    }

    @Test func illegalModeForTheCategoryNamesBoth() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { category: playback, mode: voiceChat }"
            )
        )
        #expect(error.location.line == 3)
        #expect(error.message.contains("mode 'voiceChat' is not allowed with category 'playback'"))
    }

    @Test func stringWhereAListIsExpectedIsAnError() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { category: playback, options: mixWithOthers }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 41))
        #expect(error.message.contains("session 'music': options: 'mixWithOthers' is not a list; expected a list"))
    }

    @Test func streamSessionCannotAlsoDeclareACategory() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music }, category: playback }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 43))
        #expect(error.message.contains("'category' cannot go with 'stream'"))
    }

    // MARK: - Players (POLICY section 6b)

    @Test func mediaPlayerOnAnAwareSessionIsAnErrorAtTheKey() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { category: playback, mediaPlayer: true }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 32))
        #expect(error.message.contains("'mediaPlayer' goes only with 'stream:'"))
    }

    @Test func answersWithoutMediaPlayerIsAnErrorAtTheKey() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music }, answers: false }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 43))
        #expect(error.message.contains("'answers' goes only with 'mediaPlayer: true'"))
    }

    @Test func mediaPlayerThatIsNotABoolIsAnError() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music }, mediaPlayer: yes please }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 56))
        #expect(error.message.contains("mediaPlayer"))
    }

    @Test func mediaPlayerExpectationOfANonPlayerIsAnErrorAtTheKey() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music } }"
            ).replacingOccurrences(
                of: "  - activate: music",
                with: "  - play: music\n  - expect: { sessions: { music: { mediaPlayer: playing } } }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 36))
        #expect(error.message.contains("'mediaPlayer' is checked only for a player"))
    }

    @Test func unknownMediaPlayerStateListsTheStates() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music }, mediaPlayer: true }"
            ).replacingOccurrences(
                of: "  - activate: music",
                with: "  - play: music\n  - expect: { sessions: { music: { mediaPlayer: stopped } } }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 49))
        #expect(error.message.contains("'stopped' is not a player state; expected one of: playing, paused"))
    }

    @Test func playersAndTheirExpectationsAreRead() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.role: music }, mediaPlayer: true, answers: false }"
            ).replacingOccurrences(
                of: "  - activate: music",
                with: "  - play: music\n  - expect: { sessions: { music: { mediaPlayer: paused } } }"
            ),
            file: "ok.yaml"
        )
        #expect(scenario.sessions[0].isMediaPlayer)
        #expect(!scenario.sessions[0].playerAnswers)
        #expect(!scenario.sessions[1].isMediaPlayer)
        guard case .expect(let expectation) = scenario.steps[1].action else {
            Issue.record("step 2 is not an expect")
            return
        }
        #expect(expectation.sessions.first?.mediaPlayer == .paused)
    }

    @Test func unknownStreamPropertyIsAnError() throws {
        let error = try loadError(
            Self.valid.replacingOccurrences(
                of: "music: { category: playback }",
                with: "music: { stream: { media.rol: music } }"
            )
        )
        #expect(error.location == .init(file: "bad.yaml", line: 3, column: 22))
        #expect(error.message.contains("unknown key 'media.rol'"))
        #expect(error.message.contains("media.role"))
    }

    @Test func outputPortListedAsInputIsAnError() throws {
        let error = try loadError(
            """
            name: t
            device:
              outputs: [speaker, headphones]
              inputs: [builtInMic, speaker]
            sessions:
              music: {}
            steps:
              - play: music
            """
        )
        #expect(error.location == .init(file: "bad.yaml", line: 4, column: 24))
        #expect(error.message.contains("'speaker' is not an input port"))
    }

    // MARK: - Steps

    @Test func unknownStepListsTheValidOnes() throws {
        let error = try loadError(Self.valid.replacingOccurrences(of: "- activate: music", with: "- activte: music"))
        #expect(error.location == .init(file: "bad.yaml", line: 6, column: 5))
        #expect(error.message.hasPrefix("step 1: unknown step 'activte'; expected one of: activate, deactivate,"))
    }

    @Test func stepNamingAnUndeclaredSessionListsTheDeclaredOnes() throws {
        let error = try loadError(
            Self.valid
                + "\n  - play: music\n  - expect: { sessions: { music: { state: active } } }\n  - activate: phonee"
        )
        #expect(error.location == .init(file: "bad.yaml", line: 9, column: 15))
        #expect(error.message == "step 4 (activate): 'phonee' is not a declared session; declared: music, phone")
    }

    @Test func unawareSessionDrivenByActivateIsAnError() throws {
        let error = try loadError(
            """
            name: t
            sessions:
              radio: { stream: { media.role: music } }
            steps:
              - play: radio
              - activate: radio
            """
        )
        #expect(error.location == .init(file: "bad.yaml", line: 6, column: 15))
        #expect(error.message.contains("step 2 (activate): 'radio' is an unaware app"))
        #expect(error.message.contains("play, pause, record, stopRecording, background, foreground"))
    }

    @Test func notifyOthersMaybeIsNotABool() throws {
        let error = try loadError(Self.valid + "\n  - deactivate: music\n    notifyOthers: maybe")
        #expect(error.location == .init(file: "bad.yaml", line: 8, column: 19))
        #expect(error.message == "step 2 (deactivate): notifyOthers: 'maybe' is not a bool; expected true or false")
    }

    @Test func misplacedArgumentIsAnError() throws {
        let error = try loadError(Self.valid + "\n    notifyOthers: true")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 5))
        #expect(error.message == "unknown key 'notifyOthers' in step 1 (activate); expected one of: error")
    }

    @Test func secondStepKeywordInOneItemIsAnError() throws {
        let error = try loadError(Self.valid + "\n    play: music")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 5))
        #expect(error.message.contains("'play' starts another step"))
    }

    @Test func setCategoryWithoutCategoryIsAnError() throws {
        let error = try loadError(Self.valid + "\n  - setCategory: music\n    mode: default")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 5))
        #expect(error.message == "missing key 'category' in step 2 (setCategory); it is required")
    }

    @Test func setCategoryMayAskForAnIllegalOptionToCheckBadParam() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: Self.valid + "\n  - setCategory: music\n    category: playback\n    options: [defaultToSpeaker]"
                + "\n    error: badParam",
            file: "ok.yaml"
        )
        #expect(
            scenario.steps[1].action == .setCategory("music", .playback, mode: .default, options: .defaultToSpeaker)
        )
        #expect(scenario.steps[1].expectedError == .badParam)
    }

    @Test func unknownPortIsAnError() throws {
        let error = try loadError(Self.valid + "\n  - connect: hedphones")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 14))
        #expect(error.message.contains("step 2 (connect): 'hedphones' is not a port; expected one of: speaker,"))
    }

    @Test func selectOutputNeedsAnOutputPort() throws {
        let error = try loadError(Self.valid + "\n  - selectOutput: builtInMic")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 19))
        #expect(error.message.contains("'builtInMic' is not an output port; expected one of: speaker,"))
    }

    @Test func selectOutputOfAnInputMayCheckBadParam() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: Self.valid + "\n  - selectOutput: builtInMic\n    error: badParam",
            file: "ok.yaml"
        )
        #expect(scenario.steps[1].action == .selectOutput(.builtInMic))
        #expect(scenario.steps[1].expectedError == .badParam)
    }

    @Test func unknownErrorCodeIsAnError() throws {
        let error = try loadError(Self.valid + "\n    error: badparam")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 12))
        #expect(error.message.contains("'badparam' is not an error code; expected one of: badParam,"))
    }

    @Test func badDurationIsAnError() throws {
        let error = try loadError(Self.valid + "\n  - wait: 2 seconds")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 11))
        #expect(error.message.contains("step 2 (wait): '2 seconds' is not a duration"))
        let negative = try loadError(Self.valid + "\n  - wait: -1s")
        #expect(negative.message.contains("negative"))
        let bare = try loadError(Self.valid + "\n  - wait: 600")
        #expect(bare.message.contains("'600' is not a duration"))
    }

    @Test(arguments: [("600ms", 600), ("2s", 2000), ("1.5s", 1500), ("0ms", 0), ("0.001s", 1), ("2.50s", 2500)])
    func durationsInMilliseconds(text: String, milliseconds: Int) throws {
        let scenario = try ScenarioLoader.parse(yaml: Self.valid + "\n  - wait: \(text)", file: "ok.yaml")
        #expect(scenario.steps.last?.action == .wait(milliseconds: milliseconds))
    }

    @Test(arguments: ["1.5ms", "0.0005s", "s", ".5s", "1e3ms", "5m"])
    func durationsThatAreNotWholeMilliseconds(text: String) throws {
        let error = try loadError(Self.valid + "\n  - wait: \(text)")
        #expect(error.message.contains("is not a duration"))
    }

    // MARK: - Expectations

    @Test func unknownOutputListsTheOutputs() throws {
        let error = try loadError(Self.valid + "\n  - expect:\n      sessions: { music: { output: loud } }")
        #expect(error.location == .init(file: "bad.yaml", line: 8, column: 36))
        #expect(error.message.contains("'loud' is not an output; expected one of: audible, ducked, silent, none"))
        #expect(error.message.hasPrefix("step 2 (expect)"))
    }

    @Test func shouldResumeOnlyWithEnded() throws {
        let error = try loadError(
            Self.valid + "\n  - expect:\n      notifications:"
                + "\n        - { session: music, interruption: began, shouldResume: true }"
        )
        #expect(error.location == .init(file: "bad.yaml", line: 9, column: 50))
        #expect(error.message.contains("shouldResume goes only with 'interruption: ended'"))
    }

    @Test func notificationWithTwoKindsIsAnError() throws {
        let error = try loadError(
            Self.valid + "\n  - expect:\n      notifications:"
                + "\n        - { session: music, interruption: began, routeChange: override }"
        )
        #expect(error.location == .init(file: "bad.yaml", line: 9, column: 50))
        #expect(error.message.contains("'routeChange' cannot go with 'interruption'"))
    }

    @Test func expectationOfAnUndeclaredSessionIsAnError() throws {
        let error = try loadError(Self.valid + "\n  - expect: { sessions: { musik: { state: active } } }")
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 27))
        #expect(error.message.contains("'musik' is not a declared session; declared: music, phone"))
    }

    @Test func routesAndEmptyNotificationsParse() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: Self.valid + """

                  - expect:
                      sessions:
                        music: { route: none, inputRoute: none, options: [mixWithOthers], otherAudioPlaying: false }
                        phone: { route: receiver, inputRoute: builtInMic, mode: voiceChat, secondaryAudioHint: true }
                      notifications: []
                """,
            file: "ok.yaml"
        )
        guard case .expect(let expectation) = try #require(scenario.steps.last).action else {
            Issue.record("the last step is not an expect step")
            return
        }
        #expect(expectation.notifications == [])
        #expect(expectation.sessions.map(\.session) == ["music", "phone"])
        #expect(expectation.sessions[0].route == .some(nil))
        #expect(expectation.sessions[0].inputRoute == .some(nil))
        #expect(expectation.sessions[0].options == .mixWithOthers)
        #expect(expectation.sessions[0].otherAudioPlaying == false)
        #expect(expectation.sessions[0].state == nil)
        #expect(expectation.sessions[1].route == .some(.receiver))
        #expect(expectation.sessions[1].inputRoute == .some(.builtInMic))
        #expect(expectation.sessions[1].secondaryAudioHint == true)
    }

    // MARK: - covers comments

    @Test func unknownRuleInCoversIsAnErrorAtIt() throws {
        let error = try loadError("# covers: A4 D3\n# covers: C6, X9\n" + Self.valid)
        #expect(error.location == .init(file: "bad.yaml", line: 2, column: 15))
        #expect(error.message.contains("'X9', which is not a rule"))
    }

    @Test func coversCommentsAnywhereFillCoveredRules() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: "# covers: A4 D3\n" + Self.valid + "   # covers: C6,R1, U2\n# not a covers line: Z1\n",
            file: "ok.yaml"
        )
        #expect(scenario.coveredRules == [.A4, .D3, .C6, .R1, .U2])
    }

    @Test func windowsLineEndingsKeepLineNumbers() throws {
        let crlf = { (text: String) in text.replacingOccurrences(of: "\n", with: "\r\n") }
        let scenario = try ScenarioLoader.parse(yaml: "\u{FEFF}" + crlf("# covers: A1\n" + Self.valid), file: "ok.yaml")
        #expect(scenario.coveredRules == [.A1])
        #expect(scenario.steps.first?.location == .init(file: "ok.yaml", line: 7, column: 5))
        let error = try loadError(crlf(Self.valid + "\n# covers: A1 B2"))
        #expect(error.location == .init(file: "bad.yaml", line: 7, column: 14))
    }

    // MARK: - The POLICY.md example

    @Test func policyExampleParses() throws {
        let scenario = try ScenarioLoader.parse(yaml: Self.policyExample, file: "example.yaml")
        #expect(scenario.file == "example.yaml")
        #expect(scenario.name == "A call interrupts music; music may resume afterwards")
        #expect(scenario.config == .standard)
        #expect(scenario.device == DeviceSetup())
        #expect(scenario.sessions.map(\.name) == ["music", "phone", "game", "radio"])
        #expect(scenario.sessions[1].declaration.category == .playAndRecord)
        #expect(scenario.sessions[1].declaration.mode == .voiceChat)
        #expect(scenario.sessions[1].declaration.isCall)
        #expect(scenario.sessions[1].location == .init(file: "example.yaml", line: 10, column: 3))
        #expect(scenario.sessions[3].isUnaware)
        #expect(
            scenario.sessions[3].declaration.unawareStreamProperties
                == ["media.role": "music", "application.name": "Radio"]
        )
        #expect(scenario.steps.map(\.number) == Array(1...9))
        #expect(
            scenario.steps.map(\.action.keyword) == [
                "activate", "play", "expect", "activate", "expect", "deactivate", "expect", "activate", "expect",
            ]
        )
        #expect(scenario.steps[3].action == .activate("phone"))
        #expect(scenario.steps[3].location == .init(file: "example.yaml", line: 18, column: 5))
        #expect(scenario.steps[5].action == .deactivate("phone", notifyOthers: true))
        #expect(scenario.steps.allSatisfy { $0.expectedError == nil })
        guard case .expect(let interrupted) = scenario.steps[4].action,
            case .expect(let ended) = scenario.steps[6].action
        else {
            Issue.record("steps 5 and 7 are not expect steps")
            return
        }
        #expect(interrupted.sessions.first?.state == .interrupted)
        #expect(interrupted.sessions.first?.output == .silent)
        #expect(interrupted.notifications?.map(\.kind) == [.interruptionBegan])
        #expect(interrupted.notifications?.first?.session == "music")
        #expect(ended.sessions.isEmpty)
        #expect(ended.notifications?.map(\.kind) == [.interruptionEnded(shouldResume: true)])
        #expect(scenario.coveredRules.isEmpty)
    }

    static let policyExample = """
        name: A call interrupts music; music may resume afterwards
        config: { duckLevel: 0.25 }          # optional overrides of the policy config
        device:                              # optional; the defaults are shown
          outputs: [speaker]                 # available output ports, in connection order
          inputs: [builtInMic]
          silentSwitch: ring                 # ring | silent
          screen: unlocked                   # unlocked | locked
        sessions:                            # each key is one app's session
          music: { category: playback }
          phone: { category: playAndRecord, mode: voiceChat, call: true }
          game:  { category: ambient, options: [], appState: foreground }
          radio: { stream: { media.role: music, application.name: Radio } }  # unaware app (section 6)
        steps:
          - activate: music
          - play: music                      # start (or restart) an output stream
          - expect:
              sessions: { music: { state: active, output: audible, route: speaker } }
          - activate: phone
          - expect:
              sessions:
                music: { state: interrupted, output: silent }
              notifications:
                - { session: music, interruption: began }
          - deactivate: phone
            notifyOthers: true
          - expect:
              notifications:
                - { session: music, interruption: ended, shouldResume: true }
          - activate: music
          - expect:
              sessions: { music: { state: active, output: audible } }
        """

    // MARK: - Files

    @Test func scenarioFilesExpandsDirectoriesSorted() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for relative in ["b.yaml", "a/z.yml", "a/y.yaml", "notes.txt", ".hidden/x.yaml"] {
            let url = root.appendingPathComponent(relative)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data().write(to: url)
        }
        let files = try ScenarioLoader.scenarioFiles(in: [root.path, root.path + "/b.yaml"])
        #expect(files == ["a/y.yaml", "a/z.yml", "b.yaml"].map { root.path + "/" + $0 })
        #expect(throws: ScenarioError.self) { try ScenarioLoader.scenarioFiles(in: [root.path + "/missing"]) }
    }

    @Test func loadReadsAFileAndNamesIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.valid.write(to: url, atomically: true, encoding: .utf8)
        let scenario = try ScenarioLoader.load(path: url.path)
        #expect(scenario.file == url.path)
        #expect(scenario.steps.first?.action == .activate("music"))
        let missing = try #require(throws: ScenarioError.self) { try ScenarioLoader.load(path: url.path + ".gone") }
        #expect(missing.location.file == url.path + ".gone")
    }
}
