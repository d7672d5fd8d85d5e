import AudioSessionCLI
import AudioSessionScenario
import Testing

/// What a person sees when a replay fails, and the timeline.
@Suite struct ReplayReportingTests {
    static let wrongExpectation = """
        name: Music is said to survive a call
        sessions:
          music: { category: playback }
          phone: { category: playAndRecord, call: true }
        steps:
          - play: music
          - activate: phone
          - expect:
              sessions:
                music: { state: active, output: audible }
              notifications: []
        """

    @Test func aFailureNamesTheFileTheStepItsLineAndWhy() throws {
        let file = try ScenarioFiles.temporary(Self.wrongExpectation)
        let result = ScenarioRunner.run(try ScenarioLoader.load(path: file))
        #expect(!result.passed)
        let report = result.failures.map(\.description).joined(separator: "\n")
        #expect(report.contains("\(file):10:"))
        #expect(report.contains("step 3 (expect)"))
        #expect(report.contains("expected: music.state: active"))
        #expect(report.contains("actual:   music.state: interrupted"))
        #expect(report.contains("music is interrupted: interrupted by phone (A6) at step 2"))
        #expect(report.contains("music interruption began"))
    }

    @Test func aStepThatMustFailButSucceedsIsReported() throws {
        let file = try ScenarioFiles.temporary(
            """
            name: Activating during a call is said to fail, but there is no call
            sessions:
              music: { category: playback }
            steps:
              - activate: music
                error: insufficientPriority
            """
        )
        let result = ScenarioRunner.run(try ScenarioLoader.load(path: file))
        #expect(
            result.failures.map(\.description) == [
                "\(file):5:5: step 1 (activate) failed\n  expected: the step to fail with insufficientPriority\n  actual:   it succeeded"
            ]
        )
    }

    @Test func replayExitsNonZeroAndPrintsTheTimelineWithReasons() throws {
        let file = try ScenarioFiles.temporary(Self.wrongExpectation)
        var output = ""
        let passed = try Replay.run(paths: [file], timeline: true, explain: true, to: &output)
        #expect(!passed)
        #expect(output.contains("FAIL \(file): Music is said to survive a call"))
        #expect(output.contains("step | action"))
        #expect(output.contains("interrupted silent speaker"))
        #expect(output.contains("music output is silent: interrupted by phone (A6) at step 2"))
        #expect(output.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func replayOfTheBundledScenariosPasses() throws {
        var output = ""
        #expect(try Replay.run(paths: [ScenarioFiles.directory], timeline: false, explain: false, to: &output))
        #expect(output.contains("\(ScenarioFiles.names.count) passed, 0 failed"))
    }

    @Test func aFileThatCannotBeReadFailsTheReplayButNotTheOthers() throws {
        let broken = try ScenarioFiles.temporary("name: [unclosed\n", name: "broken.yaml")
        var output = ""
        let passed = try Replay.run(
            paths: [broken, ScenarioFiles.path(of: ScenarioFiles.names[0])],
            timeline: false,
            explain: false,
            to: &output
        )
        #expect(!passed)
        #expect(output.contains("FAIL \(broken)"))
        #expect(output.contains("1 passed, 1 failed"))
    }
}
