import YAMLBackend

/// Reads a composed YAML tree strictly: every surprise is an issue at the offending node's line and column.
/// Scenario and configuration files are written by hand, so a typo must be reported with what was found and
/// what is allowed, never ignored or guessed at.
///
/// Two ways to read, for two kinds of file:
/// - a configuration file (`collecting` an `IssueList`): every issue is noted and reading goes on with the
///   default for the bad field, so that one check names every mistake. Labels are field paths from the top of
///   the file: `rules[2].category`, `socket.mode` (lists count from 1).
/// - a scenario file: the first issue ends the reading. Labels say where in words:
///   `"step 3 (setCategory): category"`.
package struct StrictYAML {
    /// The file name that issues carry.
    package let file: String
    /// Where issues go when reading goes on past them; nil: the first one is thrown.
    let issues: IssueList?

    package init(file: String, collecting issues: IssueList? = nil) {
        self.file = file
        self.issues = issues
    }

    /// Whether this reads a configuration file: issues collected, labels as field paths.
    var isConfiguration: Bool { issues != nil }

    package func location(of node: YAMLNode) -> SourceLocation {
        SourceLocation(file: file, line: node.mark.line, column: node.mark.column)
    }

    /// A scenario's own error (steps, expectations), thrown as it is.
    package func error(at node: YAMLNode, _ message: String) -> ScenarioError {
        ScenarioError(location(of: node), message)
    }

    /// An issue with `field` at `node`: `field: problem; expectation`.
    package func issue(at node: YAMLNode, _ field: String, _ problem: String, _ expectation: String = "")
        -> ConfigurationIssue
    {
        ConfigurationIssue(
            file: file,
            location: location(of: node),
            field: field,
            problem: problem,
            expectation: expectation
        )
    }

    /// Runs `read`; for a configuration file, an issue it throws is noted and the answer is nil, so that the
    /// caller keeps its default and reads on. For a scenario file the issue is thrown on.
    func recover<Value>(_ read: () throws -> Value) throws -> Value? {
        guard let issues else { return try read() }
        do {
            return try read()
        } catch let issue as ConfigurationIssue {
            issues.append(issue)
        } catch let error as ScenarioError {
            issues.append(
                ConfigurationIssue(
                    file: file,
                    location: error.location,
                    field: "",
                    problem: error.message,
                    expectation: ""
                )
            )
        }
        return nil
    }

    /// Notes `issue` for a configuration file (the caller then reads on), throws it for a scenario file.
    func note(_ issue: ConfigurationIssue) throws {
        guard let issues else { throw issue }
        issues.append(issue)
    }

    /// The label of `key` in the mapping labelled `parent`: `socket.mode` in a configuration file,
    /// `step 3 (setCategory): category` in a scenario.
    package func label(_ parent: String, _ key: String) -> String {
        if parent.isEmpty { return key }
        return isConfiguration ? "\(parent).\(key)" : "\(parent): \(key)"
    }

    /// The label of item `index` (from 0) of the list labelled `list`: `callExemptApps[2]` in a configuration
    /// file; in a scenario the list's own label, or `inScenario` when given.
    package func label(_ list: String, item index: Int, inScenario: String? = nil) -> String {
        isConfiguration ? "\(list)[\(index + 1)]" : inScenario ?? list
    }

    /// What was found where `noun` was expected: `'loud' is not a number`, `a list is not a string`.
    private func notA(_ noun: String, _ node: YAMLNode) -> String {
        node.isNull ? "no value is given" : "\(node.kindForMessages) is not \(noun)"
    }

    /// A non-empty string. Numbers and booleans are taken as written (`application.name: 2048`), since the
    /// author's text is what a name or a property value is compared with.
    package func string(_ node: YAMLNode, _ label: String) throws -> String {
        guard case .scalar(let scalar) = node, !node.isNull else {
            throw issue(at: node, label, notA("a string", node), "expected a string")
        }
        guard !scalar.string.isEmpty else {
            throw issue(at: node, label, "the string is empty", "expected a non-empty string")
        }
        return scalar.string
    }

    /// A whole number written in decimal; `expected` describes the numbers allowed.
    func int(_ node: YAMLNode, _ label: String, expected: String = "a whole number") throws -> Int {
        guard case .scalar(let scalar) = node, scalar.tag == .int, let value = Int(scalar.string.filter { $0 != "_" })
        else {
            throw issue(at: node, label, notA("a whole number", node), "expected \(expected)")
        }
        return value
    }

    /// A finite number, whole or not; `expected` describes the numbers allowed.
    func double(_ node: YAMLNode, _ label: String, expected: String = "a number") throws -> Double {
        guard case .scalar(let scalar) = node, scalar.tag == .int || scalar.tag == .float,
            let value = Double(scalar.string.filter { $0 != "_" }), value.isFinite
        else {
            throw issue(at: node, label, notA("a number", node), "expected \(expected)")
        }
        return value
    }

    /// `true` or `false` (YAML's `yes`, `no`, `on`, `off` too, as the resolver reads them).
    package func bool(_ node: YAMLNode, _ label: String) throws -> Bool {
        guard case .scalar(let scalar) = node, scalar.tag == .bool, let value = Self.boolValue(scalar.string) else {
            throw issue(at: node, label, "\(node.kindForMessages) is not a bool", "expected true or false")
        }
        return value
    }

    /// YAML 1.1's words for a bool, in any case.
    private static func boolValue(_ word: String) -> Bool? {
        switch word.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// One of a fixed set of words; `noun` says what the word names (`"an output"`) for the message
    /// `'loud' is not an output; expected one of: audible, ducked, silent, none`. In a configuration file a close
    /// word is suggested: `'playbak' is not a category; did you mean 'playback'? expected one of: ...`.
    package func choice<Value>(
        _ node: YAMLNode,
        _ label: String,
        noun: String,
        _ choices: [(name: String, value: Value)]
    )
        throws
        -> Value
    {
        let word = try string(node, label)
        guard let match = choices.first(where: { $0.name == word }) else {
            let names = choices.map(\.name)
            throw issue(at: node, label, "'\(word)' is not \(noun)", expectation(for: word, among: names))
        }
        return match.value
    }

    /// `choice` over an enum's raw values.
    package func choice<Value: RawRepresentable>(_ node: YAMLNode, _ label: String, noun: String, _ cases: [Value])
        throws
        -> Value
    where Value.RawValue == String {
        try choice(node, label, noun: noun, cases.map { (name: $0.rawValue, value: $0) })
    }

    /// `expected one of: a, b, c`; in a configuration file led by `did you mean 'b'?` when `word` is close to one.
    package func expectation(for word: String, among names: [String]) -> String {
        let list = "expected one of: \(names.joined(separator: ", "))"
        guard isConfiguration, let suggestion = Spelling.suggestion(for: word, in: names) else { return list }
        return "did you mean '\(suggestion)'? \(list)"
    }

    /// A YAML list (block `- x` or flow `[x, y]`).
    package func sequence(_ node: YAMLNode, _ label: String) throws -> [YAMLNode] {
        guard case .sequence(let sequence) = node else {
            throw issue(at: node, label, notA("a list", node), "expected a list")
        }
        return Array(sequence)
    }

    /// A list of non-empty strings. In a configuration file every bad item is noted, and left out.
    func stringList(_ node: YAMLNode, _ label: String) throws -> [String] {
        try sequence(node, label).enumerated().compactMap { index, item in
            try recover { try string(item, self.label(label, item: index)) }
        }
    }

    /// A mapping whose keys are strings, each once. With `allowedKeys`, any other key is an issue at that key; in
    /// a configuration file it is noted and the key left out, with a suggestion when it looks like a known key
    /// misspelt. `label` names the mapping: `unknown key 'sesions' in scenario; expected one of: ...`.
    package func mapping(_ node: YAMLNode, _ label: String, allowedKeys: [String]? = nil, expected: String? = nil)
        throws
        -> StrictMapping
    {
        guard case .mapping(let mapping) = node else {
            throw issue(at: node, label, notA("a mapping", node), "expected \(expected ?? "a mapping")")
        }
        var entries: [StrictMapping.Entry] = []
        for (keyNode, value) in mapping {
            let keyLabel = label.isEmpty ? "a key" : "a key in \(label)"
            guard let key = try recover({ try string(keyNode, keyLabel) }) else { continue }
            if let earlier = entries.first(where: { $0.key == key }) {
                // The composer already refuses a key written twice; this catches `1` and `'1'`, one text, two tags.
                let line = location(of: earlier.keyNode).line
                let place = label.isEmpty ? "" : " in \(label)"
                let duplicate = issue(at: keyNode, "", "duplicate key '\(key)'\(place)", "it is first at line \(line)")
                try note(duplicate)
                continue
            }
            if let allowedKeys, !allowedKeys.contains(key) {
                let unknown =
                    isConfiguration
                    ? issue(
                        at: keyNode,
                        self.label(label, key),
                        "unknown key",
                        expectation(for: key, among: allowedKeys)
                    )
                    : issue(
                        at: keyNode,
                        "",
                        "unknown key '\(key)' in \(label)",
                        "expected one of: \(allowedKeys.joined(separator: ", "))"
                    )
                try note(unknown)
                continue
            }
            entries.append(.init(key: key, keyNode: keyNode, value: value))
        }
        return StrictMapping(node: node, label: label, entries: entries, yaml: self)
    }
}

/// The issues found so far in one configuration file, in the order found. A reference, so that every reader
/// of the file's parts adds to the same list; it lives only while one file is read, on one thread.
package final class IssueList {
    private(set) var issues: [ConfigurationIssue] = []

    func append(_ issue: ConfigurationIssue) { issues.append(issue) }
}

/// A mapping read by `StrictYAML.mapping`, in the order the file writes it.
package struct StrictMapping {
    package struct Entry {
        package let key: String
        package let keyNode: YAMLNode
        package let value: YAMLNode
    }

    package let node: YAMLNode
    /// Names the mapping in messages: `"scenario"`, `"step 3 (setCategory)"`, `"socket"`; empty for the top of a
    /// configuration file.
    package let label: String
    package let entries: [Entry]
    package let yaml: StrictYAML

    package var isEmpty: Bool { entries.isEmpty }

    package subscript(key: String) -> YAMLNode? { entries.first { $0.key == key }?.value }

    /// Names the value of `key` in messages: `"step 3 (setCategory): category"`, `"socket.mode"`.
    package func label(of key: String) -> String { yaml.label(label, key) }

    /// The value of `key`, or an issue at the mapping when it is missing.
    package func required(_ key: String) throws -> YAMLNode {
        guard let value = self[key] else {
            if yaml.isConfiguration {
                throw yaml.issue(at: node, label(of: key), "missing", "it is required")
            }
            throw yaml.issue(at: node, "", "missing key '\(key)' in \(label)", "it is required")
        }
        return value
    }

    /// Reads the value of `key` with `read` (given the value and its label), or nil when the key is absent.
    package func optional<Value>(_ key: String, _ read: (YAMLNode, String) throws -> Value) throws -> Value? {
        guard let value = self[key] else { return nil }
        return try read(value, label(of: key))
    }

    /// `optional`, and in a configuration file an issue is noted and the answer nil: the default stays.
    func recovered<Value>(_ key: String, _ read: (YAMLNode, String) throws -> Value) throws -> Value? {
        guard let value = self[key] else { return nil }
        return try yaml.recover { try read(value, label(of: key)) }
    }
}

extension YAMLNode {
    /// `{}` at `mark`: what a key with nothing after it stands for where a mapping is due.
    package static func emptyMapping(at mark: YAMLMark) -> YAMLNode { .mapping(.init([], tag: .mapping, mark: mark)) }

    /// YAML's null: `~`, `null`, or nothing at all after the colon.
    package var isNull: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.tag == .null
    }

    /// What this node is, for "expected X, found Y" messages.
    package var kindForMessages: String {
        switch self {
        case .mapping(let mapping): mapping.isEmpty ? "an empty mapping" : "a mapping"
        case .sequence(let sequence): sequence.isEmpty ? "an empty list" : "a list"
        case .scalar(let scalar): isNull ? "nothing" : "'\(scalar.string)'"
        }
    }
}
