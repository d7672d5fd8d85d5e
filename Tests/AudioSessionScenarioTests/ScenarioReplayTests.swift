import AudioSessionPolicy
import AudioSessionScenario
import Testing

/// Every bundled scenario is one test case, and together they cover every rule.
@Suite struct ScenarioReplayTests {
    @Test(arguments: ScenarioFiles.names)
    func scenarioReplaysAsWritten(_ name: String) throws {
        let scenario = try ScenarioLoader.load(path: ScenarioFiles.path(of: name))
        let result = ScenarioRunner.run(scenario)
        #expect(result.passed, "\(result.failures.map(\.description).joined(separator: "\n"))")
    }

    @Test func thereAreAtLeastSixtyScenarios() {
        #expect(ScenarioFiles.names.count >= 60)
    }

    /// A rule no scenario exercises is a rule nothing checks: each file lists what it covers in `# covers:`.
    @Test func everyRuleIsCoveredByAScenario() throws {
        var covered = Set<Rule>()
        for name in ScenarioFiles.names {
            covered.formUnion(try ScenarioLoader.load(path: ScenarioFiles.path(of: name)).coveredRules)
        }
        let uncovered = Rule.allCases.filter { !covered.contains($0) }
        #expect(uncovered.isEmpty, "no scenario covers \(uncovered.map(\.rawValue).joined(separator: ", "))")
    }

    @Test func everyScenarioSaysWhatItCovers() throws {
        for name in ScenarioFiles.names {
            let scenario = try ScenarioLoader.load(path: ScenarioFiles.path(of: name))
            #expect(!scenario.coveredRules.isEmpty, "\(name) has no '# covers:' line")
        }
    }
}
