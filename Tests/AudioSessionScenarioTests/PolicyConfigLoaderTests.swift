import AudioSessionConfiguration
import AudioSessionPolicy
import AudioSessionScenario
import Foundation
import Testing

/// The policy configuration file and a scenario's `config:` read strictly, starting from the standard policy.
@Suite struct PolicyConfigLoaderTests {
    /// Every issue of a configuration text that cannot be used.
    private func loadError(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> ConfigurationError
    {
        try #require(throws: ConfigurationError.self, sourceLocation: sourceLocation) {
            try PolicyConfigLoader.parse(yaml: yaml, file: "policy.yaml")
        }
    }

    /// The one issue of a configuration text with one mistake.
    private func loadIssue(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> ConfigurationIssue
    {
        let error = try loadError(yaml, sourceLocation: sourceLocation)
        #expect(error.issues.count == 1, "\(error)", sourceLocation: sourceLocation)
        return try #require(error.issues.first, sourceLocation: sourceLocation)
    }

    private func at(_ line: Int, _ column: Int, in file: String = "policy.yaml") -> AudioSessionConfiguration.SourceLocation
    {
        .init(file: file, line: line, column: column)
    }

    /// The repository's root, found from this file's path: Tests/AudioSessionScenarioTests/<this file>.
    private static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func shippedPolicyFileIsTheStandardPolicy() throws {
        let path = Self.repositoryRoot.appendingPathComponent("Config/policy.yaml").path
        let whole = try DaemonConfigurationLoader.load(path: path)
        #expect(whole.ports.outputs == PortRules.standard.outputs)
        #expect(whole.ports.inputs == PortRules.standard.inputs)
        #expect(whole == .standard)
        let config = whole.policy
        #expect(config.duckLevel == PolicyConfig.standard.duckLevel)
        #expect(config.duckFadeMs == PolicyConfig.standard.duckFadeMs)
        #expect(config.graceMs == PolicyConfig.standard.graceMs)
        #expect(config.callExemptApps == PolicyConfig.standard.callExemptApps)
        #expect(config.rules == PolicyConfig.standard.rules)
        #expect(config == .standard)
    }

    @Test func thePlatformSectionSetsFeedbackdAndTheLockSource() throws {
        let set = try DaemonConfigurationLoader.parse(yaml: "platform: { feedbackd: false, lock: screensaver }", file: "policy.yaml")
        #expect(set.platform == PlatformSettings(feedbackd: false, lock: .screensaver))
        #expect(try DaemonConfigurationLoader.parse(yaml: "{}", file: "policy.yaml").platform == .standard)
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfigurationLoader.parse(yaml: "platform:\n  lock: logindd\n", file: "policy.yaml")
        }
        #expect(
            error?.description.contains(
                "policy.yaml:2:9: platform.lock: 'logindd' is not a lock source; did you mean 'logind'? expected one of: auto, logind, screensaver, off"
            ) == true,
            "\(String(describing: error))"
        )
    }

    @Test func keysOverrideTheStandardPolicyAndRulesReplaceIt() throws {
        let config = try PolicyConfigLoader.parse(
            yaml: """
                duckLevel: 0.5
                graceMs: 0
                playerTimeoutMs: 1000
                callExemptApps: [Orca]
                rules:
                  - match: { application.name: [Orca, Speakup], media.role: a11y }
                    category: playback
                    mode: spokenAudio
                    options: [duckOthers]
                    notifyOthers: true
                  - category: ambient
                """,
            file: "policy.yaml"
        )
        #expect(config.duckLevel == 0.5)
        #expect(config.duckFadeMs == PolicyConfig.standard.duckFadeMs)
        #expect(config.graceMs == 0)
        #expect(config.playerTimeoutMs == 1000)
        #expect(config.callExemptApps == ["Orca"])
        #expect(
            config.rules == [
                ClassificationRule(
                    match: ["application.name": ["Orca", "Speakup"], "media.role": ["a11y"]],
                    category: .playback,
                    mode: .spokenAudio,
                    options: .duckOthers,
                    endsWithNotifyOthers: true
                ),
                ClassificationRule(match: [:], category: .ambient),
            ]
        )
    }

    @Test func emptyMappingIsTheStandardPolicy() throws {
        #expect(try PolicyConfigLoader.parse(yaml: "{}", file: "policy.yaml") == .standard)
    }

    @Test func scenarioConfigOverridesOneKey() throws {
        let scenario = try ScenarioLoader.parse(
            yaml: "name: t\nconfig: { duckLevel: 0.1 }\nsessions: { music: {} }\nsteps: [ { play: music } ]",
            file: "s.yaml"
        )
        var expected = PolicyConfig.standard
        expected.duckLevel = 0.1
        #expect(scenario.config == expected)
    }

    @Test func unknownKeyIsAnIssueAtTheKeyWithASuggestion() throws {
        let issue = try loadIssue("duckLevel: 0.5\ngraceMS: 300\n")
        #expect(issue.location == at(2, 1))
        #expect(issue.field == "graceMS")
        #expect(
            issue.message
                == "graceMS: unknown key; did you mean 'graceMs'? expected one of: duckLevel, duckFadeMs, graceMs,"
                + " playerTimeoutMs, callExemptApps, rules"
        )
        let far = try loadIssue("volume: 0.5\n")
        #expect(
            far.message == "volume: unknown key; expected one of: duckLevel, duckFadeMs, graceMs, playerTimeoutMs, callExemptApps, rules"
        )
    }

    /// Five mistakes of five kinds (a misspelt key, an unknown word, a negative number, a missing list item, a
    /// word where a number belongs), written out of the order the loader reads the keys in: all five are
    /// reported, sorted by position, each with its field.
    @Test func everyIssueOfAFileIsReportedInTheOrderOfTheFile() throws {
        let error = try loadError(
            """
            rules:
              - category: playbak
            graceMs: -3
            duckLevle: 0.5
            callExemptApps: [Orca, ~]
            duckFadeMs: fast

            """
        )
        #expect(error.code == .invalidValues)
        let found = error.issues.map { "\($0.location!.line):\($0.location!.column) \($0.field)" }
        #expect(
            found == [
                "2:15 rules[1].category",
                "3:10 graceMs",
                "4:1 duckLevle",
                "5:24 callExemptApps[2]",
                "6:13 duckFadeMs",
            ]
        )
        #expect(
            error.description == """
                policy.yaml:2:15: rules[1].category: 'playbak' is not a category; did you mean 'playback'? expected one of: ambient, soloAmbient, playback, record, playAndRecord, audioProcessing
                policy.yaml:3:10: graceMs: -3 is negative; expected a whole number of milliseconds, 0 or more
                policy.yaml:4:1: duckLevle: unknown key; did you mean 'duckLevel'? expected one of: duckLevel, duckFadeMs, graceMs, playerTimeoutMs, callExemptApps, rules
                policy.yaml:5:24: callExemptApps[2]: no value is given; expected a string
                policy.yaml:6:13: duckFadeMs: 'fast' is not a whole number; expected a whole number of milliseconds, 0 or more
                policy.yaml: 5 errors
                """
        )
    }

    @Test func aMisspeltKeyIsSuggestedAtEveryLevel() throws {
        let ruleIssues = try loadError("rules:\n  - catgory: playback\n").issues
        let rule = try #require(ruleIssues.first)
        #expect(rule.location == at(2, 5))
        #expect(rule.field == "rules[1].catgory")
        #expect(
            rule.message.hasPrefix("rules[1].catgory: unknown key; did you mean 'category'? expected one of: match,")
        )
        // The rule lacks its category too, since the misspelt key is not read as it.
        #expect(ruleIssues.map(\.field) == ["rules[1].catgory", "rules[1].category"])
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfigurationLoader.parse(
                yaml: """
                    duckLevle: 0.5
                    socket: { mdoe: "0600" }
                    ports:
                      outputs:
                        - { match: { sink.name: x }, prot: speaker }
                    alsa:
                      mixr: null
                      jacks: { card: hw:1, ports: [ { jak: "*Headphone*", port: headphones } ] }
                    loglevel: debug

                    """,
                file: "daemon.yaml"
            )
        }
        let suggestions = error.issues.filter { $0.message.contains("did you mean") }.map {
            "\($0.field) \($0.expectation.prefix { $0 != "?" })?"
        }
        #expect(
            suggestions == [
                "duckLevle did you mean 'duckLevel'?",
                "socket.mdoe did you mean 'mode'?",
                "ports.outputs[1].prot did you mean 'port'?",
                "alsa.mixr did you mean 'mixer'?",
                "alsa.jacks.ports[1].jak did you mean 'jack'?",
                "loglevel did you mean 'logLevel'?",
            ]
        )
        // A port rule and a jack rule without their required key say so too, at the rule.
        #expect(error.issues.contains { $0.field == "ports.outputs[1].port" && $0.problem == "missing" })
        #expect(error.issues.contains { $0.field == "alsa.jacks.ports[1].jack" && $0.problem == "missing" })
    }

    /// Every place a port is named in the daemon's configuration (port rules for outputs and for inputs, jack
    /// rules) takes only POLICY section 4's names, and the error lists the names that place takes.
    @Test func everyPortInTheConfigurationIsAKnownPortOfItsDirection() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfigurationLoader.parse(
                yaml: """
                    ports:
                      outputs:
                        - { match: { sink.name: x }, port: builtInMic }
                        - { port: speakers }
                      inputs:
                        - { port: hdmi }
                    alsa:
                      jacks: { card: hw:1, ports: [ { jack: "*Mic*", port: mic }, { jack: "*HP*", port: 3 } ] }

                    """,
                file: "daemon.yaml"
            )
        }
        let outputs = "speaker, receiver, headphones, headset, bluetoothA2DP, bluetoothHFP, usbAudio, hdmi, lineOut, carAudio"
        let every = "\(outputs), builtInMic, headsetMic, lineIn"
        #expect(
            error.issues.map(\.description) == [
                "daemon.yaml:3:40: ports.outputs[1].port: 'builtInMic' is not an output port; expected one of: \(outputs)",
                "daemon.yaml:4:15: ports.outputs[2].port: 'speakers' is not an output port; did you mean 'speaker'? expected one of: \(outputs)",
                "daemon.yaml:6:15: ports.inputs[1].port: 'hdmi' is not an input port; expected one of: bluetoothHFP, usbAudio, builtInMic, headsetMic, lineIn",
                "daemon.yaml:8:56: alsa.jacks.ports[1].port: 'mic' is not a port; expected one of: \(every)",
                "daemon.yaml:8:85: alsa.jacks.ports[2].port: '3' is not a port; expected one of: \(every)",
            ]
        )
    }

    @Test func aValueOfTheWrongTypeNamesWhatWasFoundAndWhatIsExpected() throws {
        let issue = try loadIssue("duckLevel: loud\n")
        #expect(
            issue.description == "policy.yaml:1:12: duckLevel: 'loud' is not a number; expected a number from 0 to 1"
        )
        let fade = try loadIssue("duckFadeMs: 2.5\n")
        #expect(
            fade.message
                == "duckFadeMs: '2.5' is not a whole number; expected a whole number of milliseconds, 0 or more"
        )
        let apps = try loadIssue("callExemptApps: Orca\n")
        #expect(apps.location == at(1, 17))
        #expect(apps.message == "callExemptApps: 'Orca' is not a list; expected a list")
        let top = try loadIssue("- duckLevel: 0.5\n")
        #expect(top.location == at(1, 1))
        #expect(top.message.hasPrefix("a list is not a mapping; expected a mapping of duckLevel, duckFadeMs,"))
    }

    @Test func duckLevelOutOfRangeIsAnIssue() throws {
        let issue = try loadIssue("duckLevel: 1.5\n")
        #expect(issue.location == at(1, 12))
        #expect(issue.message == "duckLevel: 1.5 is out of range; expected a number from 0 to 1")
    }

    @Test func negativeGraceIsAnIssue() throws {
        let issue = try loadIssue("graceMs: -1\n")
        #expect(issue.location == at(1, 10))
        #expect(issue.message.contains("graceMs: -1 is negative"))
    }

    @Test func negativePlayerTimeoutIsAnIssue() throws {
        let issue = try loadIssue("playerTimeoutMs: -250\n")
        #expect(issue.location == at(1, 18))
        #expect(issue.message.contains("playerTimeoutMs: -250 is negative"))
    }

    @Test func ruleWithoutCategoryIsAnIssue() throws {
        let issue = try loadIssue("rules:\n  - match: { media.role: music }\n")
        #expect(issue.location == at(2, 5))
        #expect(issue.message == "rules[1].category: missing; it is required")
    }

    @Test func ruleMatchingAnUnknownPropertyIsAnIssue() throws {
        let issue = try loadIssue(
            "rules:\n  - category: playback\n  - match: { media.name: music }\n    category: ambient\n"
        )
        #expect(issue.location == at(3, 14))
        #expect(issue.field == "rules[2].match.media.name")
        #expect(issue.message.contains("media.role, application.name, application.process.binary, application.id"))
    }

    @Test func ruleWithAnIllegalOptionIsAnIssue() throws {
        let issue = try loadIssue("rules:\n  - category: ambient\n    options: [allowBluetooth]\n")
        #expect(issue.location == at(3, 15))
        #expect(issue.field == "rules[1].options")
        #expect(issue.message.contains("option 'allowBluetooth' is not allowed with category 'ambient'"))
    }

    @Test func ruleWithAnIllegalModeIsAnIssue() throws {
        let issue = try loadIssue("rules:\n  - category: record\n    mode: spokenAudio\n")
        #expect(issue.location == at(3, 11))
        #expect(issue.message.contains("rules[1].mode: mode 'spokenAudio' is not allowed with category 'record'"))
    }

    @Test func emptyFileIsAnError() throws {
        let error = try loadError("")
        #expect(error.code == .invalidSyntax)
        #expect(error.issues.first?.location == at(1, 1))
        #expect(error.issues.first?.message.contains("empty") == true)
    }

    /// The parser cannot go past a syntax error, so it is the one issue, even after lines with mistakes of
    /// their own.
    @Test func aSyntaxErrorIsAlone() throws {
        let error = try loadError("duckLevel: loud\ngraceMs: -1\nrules: [ { category: playback }\n")
        #expect(error.code == .invalidSyntax)
        #expect(error.issues.count == 1)
        #expect(error.issues.first?.location?.line == 4)
        #expect(error.issues.first?.message.contains("invalid YAML") == true)
        #expect(error.description.hasSuffix("\npolicy.yaml: 1 error"))
    }

    /// Text the YAML parser cannot read (a control character) is reported where it is: libyaml gives a byte
    /// offset, which becomes a line and a column counted in characters ('é' is two bytes, one column).
    @Test func unreadableTextIsAnErrorAtItsLineAndColumn() throws {
        let error = try loadError("duckLevel: 0.5\ngraceMs: é\u{7}\n")
        #expect(error.code == .invalidSyntax)
        #expect(error.issues.count == 1)
        #expect(error.issues.first?.location == at(2, 11))
        #expect(error.issues.first?.message.contains("unreadable text: control characters are not allowed") == true)
    }

    @Test func aFileThatCannotBeReadSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try #require(throws: ConfigurationError.self) {
            try PolicyConfigLoader.load(path: folder.path + "/gone.yaml")
        }
        #expect(missing.code == .unreadableFile)
        #expect(
            missing.issues.map(\.description) == [
                "\(folder.path)/gone.yaml: cannot open the file: No such file or directory"
            ]
        )
        let directory = try #require(throws: ConfigurationError.self) { try PolicyConfigLoader.load(path: folder.path) }
        #expect(directory.issues.first?.message == "cannot read the file: Is a directory")
        let latin1 = folder.appendingPathComponent("latin1.yaml")
        try Data("duckLevel: 0.5\ncallExemptApps: [Ren".utf8 + [0xE9] + "e]\n".utf8).write(to: latin1)
        let notUTF8 = try #require(throws: ConfigurationError.self) { try PolicyConfigLoader.load(path: latin1.path) }
        #expect(
            notUTF8.issues.map(\.description) == [
                "\(latin1.path):2:21: the file is not UTF-8 text: byte 35 (0xE9) is not valid UTF-8; expected UTF-8 text"
            ]
        )
    }

    /// A scenario's `config:` stops at its first issue, as the rest of a scenario does, and says it in the
    /// scenario's words.
    @Test func scenarioConfigErrorsNameConfig() throws {
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioLoader.parse(
                yaml:
                    "name: t\nconfig: { duckLvl: 0.1, graceMs: -1 }\nsessions: { music: {} }\nsteps: [ { play: music } ]",
                file: "s.yaml"
            )
        }
        #expect(error.location == .init(file: "s.yaml", line: 2, column: 11))
        #expect(error.message.hasPrefix("unknown key 'duckLvl' in config; expected one of: duckLevel,"))
    }
}
