import AudioSessionPolicy
import Yams

extension PolicyConfigLoader {
    /// The keys of one classification rule.
    public static let ruleKeys = ["match", "category", "mode", "options", "call", "notifyOthers"]

    /// One entry of `rules:`. `match` maps a stream property to a value or a list of values; with no `match`
    /// the rule matches every stream, which is how the last rule catches streams with no role.
    static func parseRule(_ node: Node, _ yaml: StrictYAML, label: String) throws -> ClassificationRule {
        let mapping = try yaml.mapping(node, label, allowedKeys: ruleKeys)
        let category = try yaml.category(mapping.required("category"), mapping.label(of: "category"))
        let mode = try mapping.optional("mode", yaml.mode) ?? .default
        let options = try mapping.optional("options", yaml.options) ?? WrittenOptions()
        try yaml.checkLegal(category: category, mode: mode, modeNode: mapping["mode"], options: options, in: mapping)
        return ClassificationRule(
            match: try mapping.optional("match") { try parseMatch($0, $1, yaml) } ?? [:],
            category: category,
            mode: mode,
            options: options.set,
            isCall: try mapping.optional("call", yaml.bool) ?? false,
            endsWithNotifyOthers: try mapping.optional("notifyOthers", yaml.bool) ?? false
        )
    }

    private static func parseMatch(_ node: Node, _ label: String, _ yaml: StrictYAML) throws -> [String: [String]] {
        if node.isNull { return [:] }
        let mapping = try yaml.mapping(node, label, allowedKeys: ClassificationRule.matchableProperties)
        var match: [String: [String]] = [:]
        for entry in mapping.entries {
            let valueLabel = mapping.label(of: entry.key)
            let values =
                if case .sequence = entry.value {
                    try yaml.stringList(entry.value, valueLabel)
                } else {
                    [try yaml.string(entry.value, valueLabel)]
                }
            guard !values.isEmpty else {
                throw yaml.error(
                    at: entry.value,
                    "\(valueLabel): an empty list matches no stream; give at least one value"
                )
            }
            match[entry.key] = values
        }
        return match
    }
}
