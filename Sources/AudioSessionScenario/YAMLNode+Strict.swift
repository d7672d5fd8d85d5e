import Yams

/// Reads a composed YAML tree strictly: every surprise becomes a `ScenarioError` at the offending node's line and
/// column. Scenario and configuration files are written by hand, so a typo must stop the run with a message that
/// says what was found and what is allowed, never be ignored or guessed at.
///
/// `label` arguments name where a value sits, for messages: `"step 3 (setCategory): category"`.
struct StrictYAML {
    /// The file name that errors carry.
    let file: String

    func location(of node: Node) -> SourceLocation {
        // Composed nodes always have a mark; 1:1 keeps a hand-built node from crashing the loader.
        SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    func error(at node: Node, _ message: String) -> ScenarioError {
        ScenarioError(location(of: node), message)
    }

    /// A non-empty string. Numbers and booleans are taken as written (`application.name: 2048`), since the
    /// author's text is what a name or a property value is compared with.
    func string(_ node: Node, _ label: String) throws -> String {
        guard case .scalar(let scalar) = node, !node.isNull else {
            throw error(at: node, "\(label): expected a string, found \(node.kindForMessages)")
        }
        guard !scalar.string.isEmpty else {
            throw error(at: node, "\(label): expected a string, found an empty one")
        }
        return scalar.string
    }

    /// A whole number written in decimal.
    func int(_ node: Node, _ label: String) throws -> Int {
        guard case .scalar(let scalar) = node, node.tagName == .int,
            let value = Int(scalar.string.replacingOccurrences(of: "_", with: ""))
        else {
            throw error(at: node, "\(label): expected a whole number, found \(node.kindForMessages)")
        }
        return value
    }

    /// A finite number, whole or not.
    func double(_ node: Node, _ label: String) throws -> Double {
        guard case .scalar(let scalar) = node, node.tagName == .int || node.tagName == .float,
            let value = Double(scalar.string.replacingOccurrences(of: "_", with: "")), value.isFinite
        else {
            throw error(at: node, "\(label): expected a number, found \(node.kindForMessages)")
        }
        return value
    }

    /// `true` or `false` (YAML's `yes`, `no`, `on`, `off` too, as the resolver reads them).
    func bool(_ node: Node, _ label: String) throws -> Bool {
        guard case .scalar(let scalar) = node, node.tagName == .bool, let value = Bool.construct(from: scalar) else {
            throw error(at: node, "\(label): \(node.kindForMessages) is not a bool; expected true or false")
        }
        return value
    }

    /// One of a fixed set of words; `noun` says what the word names (`"an output"`) for the message
    /// `'loud' is not an output; expected one of: audible, ducked, silent, none`.
    func choice<Value>(_ node: Node, _ label: String, noun: String, _ choices: [(name: String, value: Value)]) throws
        -> Value
    {
        let word = try string(node, label)
        guard let match = choices.first(where: { $0.name == word }) else {
            let names = choices.map(\.name).joined(separator: ", ")
            throw error(at: node, "\(label): '\(word)' is not \(noun); expected one of: \(names)")
        }
        return match.value
    }

    /// `choice` over an enum's raw values.
    func choice<Value: RawRepresentable>(_ node: Node, _ label: String, noun: String, _ cases: [Value]) throws -> Value
    where Value.RawValue == String {
        try choice(node, label, noun: noun, cases.map { (name: $0.rawValue, value: $0) })
    }

    /// A YAML list (block `- x` or flow `[x, y]`).
    func sequence(_ node: Node, _ label: String) throws -> [Node] {
        guard case .sequence(let sequence) = node else {
            throw error(at: node, "\(label): expected a list, found \(node.kindForMessages)")
        }
        return Array(sequence)
    }

    /// A list of non-empty strings.
    func stringList(_ node: Node, _ label: String) throws -> [String] {
        try sequence(node, label).map { try string($0, label) }
    }

    /// A mapping whose keys are strings, each once. With `allowedKeys`, any other key is an error at that key.
    /// `label` names the mapping: `unknown key 'sesions' in scenario; expected one of: ...`.
    func mapping(_ node: Node, _ label: String, allowedKeys: [String]? = nil) throws -> StrictMapping {
        guard case .mapping(let mapping) = node else {
            throw error(at: node, "\(label): expected a mapping, found \(node.kindForMessages)")
        }
        var entries: [StrictMapping.Entry] = []
        for (keyNode, value) in mapping {
            let key = try string(keyNode, "a key in \(label)")
            if let earlier = entries.first(where: { $0.key == key }) {
                // Yams already rejects duplicate keys while composing; this guards trees built some other way.
                let line = location(of: earlier.keyNode).line
                throw error(at: keyNode, "duplicate key '\(key)' in \(label); it is first at line \(line)")
            }
            if let allowedKeys, !allowedKeys.contains(key) {
                let expected = allowedKeys.joined(separator: ", ")
                throw error(at: keyNode, "unknown key '\(key)' in \(label); expected one of: \(expected)")
            }
            entries.append(.init(key: key, keyNode: keyNode, value: value))
        }
        return StrictMapping(node: node, label: label, entries: entries, yaml: self)
    }
}

/// A mapping read by `StrictYAML.mapping`, in the order the file writes it.
struct StrictMapping {
    struct Entry {
        let key: String
        let keyNode: Node
        let value: Node
    }

    let node: Node
    /// Names the mapping in messages: `"scenario"`, `"step 3 (setCategory)"`.
    let label: String
    let entries: [Entry]
    let yaml: StrictYAML

    var isEmpty: Bool { entries.isEmpty }

    subscript(key: String) -> Node? { entries.first { $0.key == key }?.value }

    /// Names the value of `key` in messages: `"step 3 (setCategory): category"`.
    func label(of key: String) -> String { "\(label): \(key)" }

    /// The value of `key`, or an error at the mapping when it is missing.
    func required(_ key: String) throws -> Node {
        guard let value = self[key] else {
            throw yaml.error(at: node, "missing key '\(key)' in \(label); it is required")
        }
        return value
    }

    /// Reads the value of `key` with `read` (given the value and its label), or nil when the key is absent.
    func optional<Value>(_ key: String, _ read: (Node, String) throws -> Value) throws -> Value? {
        guard let value = self[key] else { return nil }
        return try read(value, label(of: key))
    }
}

extension Node {
    /// YAML's null: `~`, `null`, or nothing at all after the colon.
    var isNull: Bool {
        guard case .scalar = self else { return false }
        return tagName == .null
    }

    /// The resolved tag (`int`, `str`, ...). Yams keeps `Tag.name` internal; its raw value is the name.
    var tagName: Tag.Name { Tag.Name(rawValue: tag.rawValue) }

    /// What this node is, for "expected X, found Y" messages.
    var kindForMessages: String {
        switch self {
        case .mapping(let mapping): mapping.isEmpty ? "an empty mapping" : "a mapping"
        case .sequence(let sequence): sequence.isEmpty ? "an empty list" : "a list"
        case .alias: "an alias"
        case .scalar(let scalar): isNull ? "nothing" : "'\(scalar.string)'"
        }
    }
}
