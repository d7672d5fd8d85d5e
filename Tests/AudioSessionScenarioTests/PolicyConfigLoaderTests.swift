import AudioSessionPolicy
import AudioSessionScenario
import Foundation
import Testing

/// The policy configuration file and a scenario's `config:` read strictly, starting from the standard policy.
@Suite struct PolicyConfigLoaderTests {
    private func loadError(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> ScenarioError
    {
        try #require(throws: ScenarioError.self, sourceLocation: sourceLocation) {
            try PolicyConfigLoader.parse(yaml: yaml, file: "policy.yaml")
        }
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

    @Test func keysOverrideTheStandardPolicyAndRulesReplaceIt() throws {
        let config = try PolicyConfigLoader.parse(
            yaml: """
                duckLevel: 0.5
                graceMs: 0
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

    @Test func scenarioConfigErrorsNameConfig() throws {
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioLoader.parse(
                yaml: "name: t\nconfig: { duckLvl: 0.1 }\nsessions: { music: {} }\nsteps: [ { play: music } ]",
                file: "s.yaml"
            )
        }
        #expect(error.location == .init(file: "s.yaml", line: 2, column: 11))
        #expect(error.message.hasPrefix("unknown key 'duckLvl' in config; expected one of: duckLevel,"))
    }

    @Test func unknownKeyIsAnErrorAtTheKey() throws {
        let error = try loadError("duckLevel: 0.5\ngraceMS: 300\n")
        #expect(error.location == .init(file: "policy.yaml", line: 2, column: 1))
        #expect(
            error.message
                == "unknown key 'graceMS' in policy configuration; expected one of: duckLevel, duckFadeMs, graceMs,"
                + " callExemptApps, rules"
        )
    }

    @Test func duckLevelOutOfRangeIsAnError() throws {
        let error = try loadError("duckLevel: 1.5\n")
        #expect(error.location == .init(file: "policy.yaml", line: 1, column: 12))
        #expect(error.message.contains("duckLevel: 1.5 is out of range"))
    }

    @Test func negativeGraceIsAnError() throws {
        let error = try loadError("graceMs: -1\n")
        #expect(error.location == .init(file: "policy.yaml", line: 1, column: 10))
        #expect(error.message.contains("graceMs: -1 is negative"))
    }

    @Test func fractionalFadeIsAnError() throws {
        let error = try loadError("duckFadeMs: 2.5\n")
        #expect(error.message.contains("duckFadeMs: expected a whole number, found '2.5'"))
    }

    @Test func stringWhereAListIsExpectedIsAnError() throws {
        let error = try loadError("callExemptApps: Orca\n")
        #expect(error.location == .init(file: "policy.yaml", line: 1, column: 17))
        #expect(error.message.contains("callExemptApps: expected a list, found 'Orca'"))
    }

    @Test func ruleWithoutCategoryIsAnError() throws {
        let error = try loadError("rules:\n  - match: { media.role: music }\n")
        #expect(error.location == .init(file: "policy.yaml", line: 2, column: 5))
        #expect(error.message == "missing key 'category' in rule 1 of policy configuration; it is required")
    }

    @Test func ruleMatchingAnUnknownPropertyIsAnError() throws {
        let error = try loadError(
            "rules:\n  - category: playback\n  - match: { media.name: music }\n    category: ambient\n"
        )
        #expect(error.location == .init(file: "policy.yaml", line: 3, column: 14))
        #expect(error.message.contains("unknown key 'media.name' in rule 2 of policy configuration: match"))
        #expect(error.message.contains("media.role, application.name, application.process.binary, application.id"))
    }

    @Test func ruleWithAnIllegalOptionIsAnError() throws {
        let error = try loadError("rules:\n  - category: ambient\n    options: [allowBluetooth]\n")
        #expect(error.location == .init(file: "policy.yaml", line: 3, column: 15))
        #expect(error.message.contains("option 'allowBluetooth' is not allowed with category 'ambient'"))
    }

    @Test func ruleWithAnIllegalModeIsAnError() throws {
        let error = try loadError("rules:\n  - category: record\n    mode: spokenAudio\n")
        #expect(error.location == .init(file: "policy.yaml", line: 3, column: 11))
        #expect(error.message.contains("mode 'spokenAudio' is not allowed with category 'record'"))
    }

    @Test func ruleCallMaybeIsNotABool() throws {
        let error = try loadError("rules:\n  - category: playAndRecord\n    call: maybe\n")
        #expect(error.location == .init(file: "policy.yaml", line: 3, column: 11))
        #expect(error.message.contains("call: 'maybe' is not a bool"))
    }

    @Test func emptyFileIsAnError() throws {
        let error = try loadError("")
        #expect(error.location == .init(file: "policy.yaml", line: 1, column: 1))
        #expect(error.message.contains("empty"))
    }

    @Test func malformedYAMLIsAnErrorAtItsLine() throws {
        let error = try loadError("duckLevel: 0.5\nrules: [ { category: playback }\n")
        #expect(error.location.line == 3)
        #expect(error.message.contains("invalid YAML"))
    }
}
