import AudioSessionPolicy
import YAMLBackend

/// Readers for the policy's own words (categories, modes, options, ports), shared by sessions, steps, expectations
/// and classification rules so that each word is spelled and checked the same way everywhere.
extension StrictYAML {
    package func category(_ node: YAMLNode, _ label: String) throws -> Category {
        try choice(node, label, noun: "a category", Category.allCases)
    }

    package func mode(_ node: YAMLNode, _ label: String) throws -> Mode {
        try choice(node, label, noun: "a mode", Mode.allCases)
    }

    /// A port; `direction` limits it to outputs or inputs where only those make sense.
    package func port(_ node: YAMLNode, _ label: String, direction: StreamDirection? = nil) throws -> Port {
        switch direction {
        case nil: try choice(node, label, noun: "a port", Port.allCases)
        case .output: try choice(node, label, noun: "an output port", Port.allCases.filter(\.isOutput))
        case .input: try choice(node, label, noun: "an input port", Port.allCases.filter(\.isInput))
        }
    }

    /// A list of ports in the given direction, each once (`device.outputs`, `device.inputs`).
    package func portList(_ node: YAMLNode, _ label: String, direction: StreamDirection) throws -> [Port] {
        var ports: [Port] = []
        for (index, item) in try sequence(node, label).enumerated() {
            let itemLabel = self.label(label, item: index)
            guard let port = try recover({ try port(item, itemLabel, direction: direction) }) else { continue }
            guard !ports.contains(port) else {
                try note(issue(at: item, itemLabel, "'\(port.rawValue)' is listed twice", "list each port once"))
                continue
            }
            ports.append(port)
        }
        return ports
    }

    /// A list of option names, each once, with the node of each so that a C4 error can point at it.
    package func options(_ node: YAMLNode, _ label: String) throws -> WrittenOptions {
        var written = WrittenOptions()
        for (index, item) in try sequence(node, label).enumerated() {
            let itemLabel = self.label(label, item: index)
            let named = CategoryOptions.named.map { ($0.name, $0.option) }
            guard let option = try recover({ try choice(item, itemLabel, noun: "an option", named) }) else { continue }
            guard written.set.isDisjoint(with: option) else {
                try note(issue(at: item, itemLabel, "\(item.kindForMessages) is listed twice", "list each option once"))
                continue
            }
            written.set.insert(option)
            written.nodes.append((option, item))
        }
        return written
    }

    /// C4 and C5 for a session declared in a file (a scenario's session, a classification rule): an illegal mode or
    /// option there has no step to fail with `badParam` (C6), so it is an error in the file.
    package func checkLegal(
        category: Category,
        mode: Mode,
        modeNode: YAMLNode?,
        options: WrittenOptions,
        in mapping: StrictMapping
    )
        throws
    {
        let label = mapping.label
        if let modeNode, !mode.isLegal(with: category) {
            let allowed = Category.allCases.filter { mode.isLegal(with: $0) }.map(\.rawValue).joined(separator: ", ")
            throw issue(
                at: modeNode,
                isConfiguration ? mapping.label(of: "mode") : label,
                "mode '\(mode.rawValue)' is not allowed with category '\(category.rawValue)' (C5)",
                "it is allowed with: \(allowed)"
            )
        }
        guard let illegal = options.set.firstIllegalOption(for: category), let option = CategoryOptions(name: illegal)
        else { return }
        let node = options.nodes.first { $0.option == option }?.node ?? mapping.node
        let allowed = Category.allCases.filter { option.firstIllegalOption(for: $0) == nil }
        throw issue(
            at: node,
            isConfiguration ? mapping.label(of: "options") : label,
            "option '\(illegal)' is not allowed with category '\(category.rawValue)' (C4)",
            "it is allowed with: \(allowed.map(\.rawValue).joined(separator: ", "))"
        )
    }
}

/// Options as a file lists them: the set, and where each was written.
package struct WrittenOptions {
    package var set: CategoryOptions = []
    var nodes: [(option: CategoryOptions, node: YAMLNode)] = []

    package init() {}
}
