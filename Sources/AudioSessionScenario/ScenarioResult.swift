import AudioSessionConfiguration
import AudioSessionPolicy

/// What a replay found.
public struct ScenarioResult: Sendable {
    public var scenario: Scenario
    /// Empty when every step did what the file says.
    public var failures: [StepFailure]
    /// One row per step, as the sessions stood after it.
    public var timeline: [TimelineRow]
    public var names: SessionNames
    /// The step during which each engine event was handled (0: setting up the sessions).
    public var stepOfEvent: [EventNumber: Int]

    public var passed: Bool { failures.isEmpty }

    public init(
        scenario: Scenario, failures: [StepFailure], timeline: [TimelineRow], names: SessionNames,
        stepOfEvent: [EventNumber: Int] = [:]
    ) {
        self.scenario = scenario
        self.failures = failures
        self.timeline = timeline
        self.names = names
        self.stepOfEvent = stepOfEvent
    }

    /// Turns reasons into sentences that name sessions and steps.
    public var explainer: Explainer { Explainer(names: names, stepOfEvent: stepOfEvent) }
}

/// A step that did not do what the file says.
public struct StepFailure: Sendable, CustomStringConvertible {
    /// Nil when setting up the sessions failed.
    public var step: Step?
    public var location: SourceLocation
    public var expected: String
    public var actual: String
    /// Why the engine decided as it did, in words.
    public var reasons: [String]

    public init(step: Step?, location: SourceLocation, expected: String, actual: String, reasons: [String]) {
        self.step = step
        self.location = location
        self.expected = expected
        self.actual = actual
        self.reasons = reasons
    }

    public var description: String {
        let stepText = step.map { "step \($0.number) (\($0.action.keyword))" } ?? "setup"
        var lines = [
            "\(location): \(stepText) failed",
            "  expected: \(expected)",
            "  actual:   \(actual)",
        ]
        lines += reasons.map { "  because:  \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// The sessions after one step.
public struct TimelineRow: Sendable {
    public var step: Step
    public var sessions: [SessionSnapshot]
    public var error: PolicyError?
    /// What the step's events told the sessions, in words, with why.
    public var notifications: [String]
    /// Why each session is as it is, in words, where they come from elsewhere than the engine's reasons (a
    /// live replay asks the daemon); the renderer uses these instead of explaining the snapshot itself.
    public var explanations: [SessionID: [String]]

    public init(
        step: Step, sessions: [SessionSnapshot], error: PolicyError?, notifications: [String],
        explanations: [SessionID: [String]] = [:]
    ) {
        self.step = step
        self.sessions = sessions
        self.error = error
        self.notifications = notifications
        self.explanations = explanations
    }
}
