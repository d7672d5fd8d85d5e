import AudioSessionPolicy
import YAMLBackend

/// Reads the policy configuration (`Config/policy.yaml`, or a scenario's `config:`): a mapping whose keys
/// override `PolicyConfig.standard`. `rules`, when present, replaces the default rules as a whole, since rules
/// are matched in order and a merged list would have no clear order.
///
/// A file is read to its end: a `ConfigurationError` names every issue in it (`ConfigurationFile`). A
/// scenario's `config:` stops at its first, as the rest of the scenario does.
public enum PolicyConfigLoader: Sendable {
    /// The keys a configuration may set.
    public static let keys = ["duckLevel", "duckFadeMs", "graceMs", "playerTimeoutMs", "callExemptApps", "rules"]

    static let expected = "a mapping of \(keys.joined(separator: ", ")) (or {})"

    /// Reads the configuration file at `path`. Throws a `ConfigurationError` with every issue of the file.
    public static func load(path: String) throws -> PolicyConfig {
        try ConfigurationFile.load(path: path, keys: keys, expected: expected) { try read($0, $1) }
    }

    /// Reads a configuration from YAML text; `file` names it in errors. Throws a `ConfigurationError` with every
    /// issue of the text.
    public static func parse(yaml: String, file: String) throws -> PolicyConfig {
        try ConfigurationFile.parse(yaml, file: file, keys: keys, expected: expected) { try read($0, $1) }
    }

    /// Reads a configuration from a composed YAML node (a scenario's `config:`); `file` names it in errors.
    /// Throws a `ScenarioError` at the first issue.
    public static func parse(node: YAMLNode, file: String) throws -> PolicyConfig {
        do {
            return try read(node, StrictYAML(file: file), label: "config")
        } catch let issue as ConfigurationIssue {
            throw ScenarioError(issue.location ?? SourceLocation(file: file, line: 1, column: 1), issue.message)
        }
    }

    /// A scenario's `config:`, labelled `label`.
    package static func read(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> PolicyConfig {
        try read(yaml.mapping(node, label, allowedKeys: keys), yaml)
    }

    /// The policy's keys of `mapping`; other keys (the daemon's) are left to the caller. A key whose value is
    /// wrong keeps the standard value, when the reader goes on past issues.
    static func read(_ mapping: StrictMapping, _ yaml: StrictYAML) throws -> PolicyConfig {
        try read(mapping, yaml, takesClients: false).policy
    }

    /// The policy's keys of `mapping`, and with `takesClients` (the daemon's file) the clients `callExemptApps`
    /// names by executable; without, such an entry is an issue.
    static func read(_ mapping: StrictMapping, _ yaml: StrictYAML, takesClients: Bool) throws
        -> (policy: PolicyConfig, clients: [CallExemptClient])
    {
        var config = PolicyConfig.standard
        var clients: [CallExemptClient] = []
        if let duckLevel = try mapping.recovered("duckLevel", { try gain($0, $1, yaml) }) {
            config.duckLevel = duckLevel
        }
        if let duckFadeMs = try mapping.recovered("duckFadeMs", { try milliseconds($0, $1, yaml) }) {
            config.duckFadeMs = duckFadeMs
        }
        if let graceMs = try mapping.recovered("graceMs", { try milliseconds($0, $1, yaml) }) {
            config.graceMs = graceMs
        }
        if let playerTimeoutMs = try mapping.recovered("playerTimeoutMs", { try milliseconds($0, $1, yaml) }) {
            config.playerTimeoutMs = playerTimeoutMs
        }
        if let exempt = try mapping.recovered(
            "callExemptApps",
            { try parseExemptions($0, yaml, label: $1, takesClients: takesClients) }
        ) {
            config.callExemptApps = exempt.names
            clients = exempt.clients
        }
        if let ruleNodes = try mapping.recovered("rules", yaml.sequence) {
            let rulesLabel = mapping.label(of: "rules")
            var rules: [ClassificationRule] = []
            for (index, rule) in ruleNodes.enumerated() {
                let label = yaml.label(rulesLabel, item: index, inScenario: "rule \(index + 1) of \(mapping.label)")
                if let rule = try yaml.recover({ try parseRule(rule, yaml, label: label) }) ?? nil {
                    rules.append(rule)
                }
            }
            config.rules = rules
        }
        return (config, clients)
    }

    private static let gainRange = "a number from 0 to 1"
    private static let millisecondRange = "a whole number of milliseconds, 0 or more"

    private static func gain(_ node: YAMLNode, _ label: String, _ yaml: StrictYAML) throws -> Double {
        let value = try yaml.double(node, label, expected: gainRange)
        guard (0...1).contains(value) else {
            throw yaml.issue(at: node, label, "\(value) is out of range", "expected \(gainRange)")
        }
        return value
    }

    private static func milliseconds(_ node: YAMLNode, _ label: String, _ yaml: StrictYAML) throws -> Int {
        let value = try yaml.int(node, label, expected: millisecondRange)
        guard value >= 0 else {
            throw yaml.issue(at: node, label, "\(value) is negative", "expected \(millisecondRange)")
        }
        return value
    }
}
