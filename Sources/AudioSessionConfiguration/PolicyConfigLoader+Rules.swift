import AudioSessionPolicy
import YAMLBackend

extension PolicyConfigLoader {
    /// The keys of one classification rule.
    public static let ruleKeys = ["match", "category", "mode", "options", "call", "notifyOthers"]

    /// One entry of `rules:`. `match` maps a stream property to a value or a list of values; with no `match`
    /// the rule matches every stream, which is how the last rule catches streams with no role.
    ///
    /// Every field is read, so that a configuration file's check names all the rule's issues; nil when the rule
    /// has one (the file is refused then anyway).
    static func parseRule(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> ClassificationRule? {
        let mapping = try yaml.mapping(node, label, allowedKeys: ruleKeys)
        let category = try yaml.recover {
            try yaml.category(mapping.required("category"), mapping.label(of: "category"))
        }
        let mode = try mapping.recovered("mode", yaml.mode)
        let options = try mapping.recovered("options", yaml.options)
        if let category, mapping["mode"] == nil || mode != nil, mapping["options"] == nil || options != nil {
            try yaml.recover {
                try yaml.checkLegal(
                    category: category,
                    mode: mode ?? .default,
                    modeNode: mapping["mode"],
                    options: options ?? WrittenOptions(),
                    in: mapping
                )
            }
        }
        let match = try mapping.recovered("match") { try parseMatch($0, $1, yaml) }
        let isCall = try mapping.recovered("call", yaml.bool)
        let endsWithNotifyOthers = try mapping.recovered("notifyOthers", yaml.bool)
        guard let category else { return nil }
        return ClassificationRule(
            match: match ?? [:],
            category: category,
            mode: mode ?? .default,
            options: options?.set ?? [],
            isCall: isCall ?? false,
            endsWithNotifyOthers: endsWithNotifyOthers ?? false
        )
    }

    private static func parseMatch(_ node: YAMLNode, _ label: String, _ yaml: StrictYAML) throws -> [String: [String]] {
        if node.isNull { return [:] }
        let mapping = try yaml.mapping(node, label, allowedKeys: ClassificationRule.matchableProperties)
        var match: [String: [String]] = [:]
        for entry in mapping.entries {
            let valueLabel = mapping.label(of: entry.key)
            let values = try yaml.recover { () throws -> [String] in
                guard !entry.value.isEmptySequence else {
                    throw yaml.issue(
                        at: entry.value,
                        valueLabel,
                        "an empty list matches no stream",
                        "give at least one value"
                    )
                }
                return if case .sequence = entry.value {
                    try yaml.stringList(entry.value, valueLabel)
                } else {
                    [try yaml.string(entry.value, valueLabel)]
                }
            }
            if let values { match[entry.key] = values }
        }
        return match
    }
}

extension YAMLNode {
    /// `[]`.
    var isEmptySequence: Bool {
        guard case .sequence(let sequence) = self else { return false }
        return sequence.isEmpty
    }
}
