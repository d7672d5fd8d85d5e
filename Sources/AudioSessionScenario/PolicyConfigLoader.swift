import AudioSessionPolicy
import Yams

/// Reads the policy configuration (`Config/policy.yaml`, or a scenario's `config:`): a mapping whose keys
/// override `PolicyConfig.standard`. `rules`, when present, replaces the default rules as a whole, since rules
/// are matched in order and a merged list would have no clear order.
public enum PolicyConfigLoader: Sendable {
    /// The keys a configuration may set.
    public static let keys = ["duckLevel", "duckFadeMs", "graceMs", "callExemptApps", "rules"]

    /// Reads the configuration file at `path`.
    public static func load(path: String) throws -> PolicyConfig {
        try parse(yaml: StrictYAML.readFile(path), file: path)
    }

    /// Reads a configuration from YAML text; `file` names it in errors.
    public static func parse(yaml: String, file: String) throws -> PolicyConfig {
        let reader = StrictYAML(file: file)
        let root = try reader.compose(
            StrictYAML.withoutByteOrderMark(yaml),
            expected: "a mapping of \(keys.joined(separator: ", ")) (or {})"
        )
        return try parse(root, reader, label: "policy configuration")
    }

    /// Reads a configuration from a composed YAML node (a scenario's `config:`); `file` names it in errors.
    public static func parse(node: Node, file: String) throws -> PolicyConfig {
        try parse(node, StrictYAML(file: file), label: "config")
    }

    static func parse(_ node: Node, _ yaml: StrictYAML, label: String, otherKeys: [String] = []) throws -> PolicyConfig {
        let mapping = try yaml.mapping(node, label, allowedKeys: keys + otherKeys)
        var config = PolicyConfig.standard
        if let duckLevel = try mapping.optional("duckLevel", { try gain($0, $1, yaml) }) {
            config.duckLevel = duckLevel
        }
        if let duckFadeMs = try mapping.optional("duckFadeMs", { try milliseconds($0, $1, yaml) }) {
            config.duckFadeMs = duckFadeMs
        }
        if let graceMs = try mapping.optional("graceMs", { try milliseconds($0, $1, yaml) }) {
            config.graceMs = graceMs
        }
        if let apps = try mapping.optional("callExemptApps", yaml.stringList) {
            config.callExemptApps = apps
        }
        if let rules = mapping["rules"] {
            let ruleNodes = try yaml.sequence(rules, mapping.label(of: "rules"))
            config.rules = try ruleNodes.enumerated().map { index, rule in
                try parseRule(rule, yaml, label: "rule \(index + 1) of \(label)")
            }
        }
        return config
    }

    private static func gain(_ node: Node, _ label: String, _ yaml: StrictYAML) throws -> Double {
        let value = try yaml.double(node, label)
        guard (0...1).contains(value) else {
            throw yaml.error(at: node, "\(label): \(value) is out of range; expected a linear gain from 0 to 1")
        }
        return value
    }

    private static func milliseconds(_ node: Node, _ label: String, _ yaml: StrictYAML) throws -> Int {
        let value = try yaml.int(node, label)
        guard value >= 0 else {
            throw yaml.error(at: node, "\(label): \(value) is negative; expected a number of milliseconds >= 0")
        }
        return value
    }
}
