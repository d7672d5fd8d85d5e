/// One thing wrong in a configuration file, printed as a compiler prints a diagnostic:
/// `policy.yaml:7:12: duckLevel: 'loud' is not a number; expected a number from 0 to 1`.
///
/// The strict YAML reader throws these; the configuration loaders collect them and go on, so that one check of
/// a file names every mistake in it. The scenario loader turns the first into a `ScenarioError`.
public struct ConfigurationIssue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file the issue is in, as given to the loader.
    public var file: String
    /// Where in the file; nil when the issue is the file as a whole (it cannot be opened or read).
    public var location: SourceLocation?
    /// The field, as a path from the top of the file: `duckLevel`, `rules[2].category`, `socket.mode`
    /// (lists count from 1). Empty when the issue is not about one field (the file, its syntax, its top).
    public var field: String
    /// What is wrong: `'loud' is not a number`, `unknown key`.
    public var problem: String
    /// What would be right: `expected a number from 0 to 1`, `did you mean 'duckLevel'?`. Empty when nothing
    /// useful can be said.
    public var expectation: String

    public init(file: String, location: SourceLocation?, field: String, problem: String, expectation: String) {
        self.file = file
        self.location = location
        self.field = field
        self.problem = problem
        self.expectation = expectation
    }

    /// The issue without its position: `field: problem; expectation`, leaving out the parts that are empty.
    public var message: String {
        let head = field.isEmpty ? problem : "\(field): \(problem)"
        return expectation.isEmpty ? head : "\(head); \(expectation)"
    }

    /// `file:line:column: message`, or `file: message` for the file as a whole.
    public var description: String {
        "\(location.map(\.description) ?? file): \(message)"
    }

    /// Issues sorted by position: whole-file issues first, then by line and column; the order found otherwise.
    static func sorted(_ issues: [ConfigurationIssue]) -> [ConfigurationIssue] {
        issues.enumerated().sorted { left, right in
            let leftKey = (left.element.location?.line ?? 0, left.element.location?.column ?? 0, left.offset)
            let rightKey = (right.element.location?.line ?? 0, right.element.location?.column ?? 0, right.offset)
            return leftKey < rightKey
        }
        .map(\.element)
    }
}

/// A configuration file that cannot be used, with every issue found in it.
///
/// `description` is one line per issue, sorted by position, then a summary line (`policy.yaml: 3 errors`).
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; stable across releases, for programs and tests to compare.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The file could not be opened or is not UTF-8 text; there is one issue.
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        /// The file is not valid YAML (or is empty); there is one issue, at the place the parser stopped.
        public static let invalidSyntax = Code(rawValue: "invalidSyntax")
        /// The file is YAML, but keys or values are wrong; there is one issue per mistake.
        public static let invalidValues = Code(rawValue: "invalidValues")

        public let rawValue: String
        public var description: String { rawValue }
    }

    public var code: Code
    /// The file, as given to the loader.
    public var file: String
    /// Every issue, sorted by position; never empty.
    public var issues: [ConfigurationIssue]

    public init(code: Code, file: String, issues: [ConfigurationIssue]) {
        self.code = code
        self.file = file
        self.issues = ConfigurationIssue.sorted(issues)
    }

    /// `policy.yaml: 1 error`, `policy.yaml: 3 errors`.
    public var summary: String {
        "\(file): \(issues.count) \(issues.count == 1 ? "error" : "errors")"
    }

    public var description: String {
        (issues.map(\.description) + [summary]).joined(separator: "\n")
    }
}
