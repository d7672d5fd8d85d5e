import AudioSessionConfiguration
import AudioSessionPolicy
import YAMLBackend

/// Reads scenario files (POLICY section 7) into `Scenario`s. Unknown keys, unknown words and steps that cannot
/// make sense (an undeclared session, an unaware app driven by `activate`) are errors at their line and column,
/// so that a scenario that loads replays as its author meant.
public enum ScenarioLoader: Sendable {
    /// The keys a scenario file may have at its top level.
    public static let topLevelKeys = ["name", "config", "device", "sessions", "steps"]

    /// Reads the scenario file at `path`; the scenario's `file` is `path` as given.
    public static func load(path: String) throws -> Scenario {
        let text = try firstIssueAsScenarioError { try StrictYAML.readFile(path) }
        return try parse(yaml: text, file: path)
    }

    /// Reads a scenario from YAML text; `file` names it in errors and in the scenario.
    public static func parse(yaml text: String, file: String) throws -> Scenario {
        try firstIssueAsScenarioError { try read(yaml: text, file: file) }
    }

    /// A scenario stops at its first mistake, reported as a `ScenarioError` at its line and column (the file's
    /// first line for a file that cannot be read at all).
    private static func firstIssueAsScenarioError<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let issue as ConfigurationIssue {
            throw ScenarioError(issue.location ?? SourceLocation(file: issue.file, line: 1, column: 1), issue.message)
        }
    }

    private static func read(yaml text: String, file: String) throws -> Scenario {
        let text = StrictYAML.withoutByteOrderMark(text)
        let yaml = StrictYAML(file: file)
        let root = try yaml.compose(text, expected: "a scenario with name, sessions and steps")
        let top = try yaml.mapping(root, "scenario", allowedKeys: topLevelKeys)
        let name = try yaml.string(top.required("name"), "name")
        let config = try top["config"].map { try PolicyConfigLoader.read($0, yaml, label: "config") }
        let device = try top["device"].map { try yaml.device($0, "device") }
        var reader = ScenarioReader(yaml: yaml)
        try reader.readSessions(top.required("sessions"))
        let steps = try reader.readSteps(top.required("steps"))
        return Scenario(
            file: file,
            name: name,
            config: config ?? .standard,
            device: device ?? DeviceSetup(),
            sessions: reader.sessions,
            steps: steps,
            coveredRules: try yaml.coveredRules(in: text)
        )
    }
}

/// The state of reading one scenario: the sessions declared so far, which steps and expectations may name.
struct ScenarioReader {
    let yaml: StrictYAML
    private(set) var sessions: [SessionSpec] = []

    init(yaml: StrictYAML) {
        self.yaml = yaml
    }

    /// The keys of one session.
    static let sessionKeys = ["category", "mode", "options", "call", "appState", "stream", "mediaPlayer", "answers"]
    /// Keys an unaware app's session (`stream:`) may not have: the rules decide its category, mode, options and
    /// whether it is a call.
    static let keysOfAwareSessions = ["category", "mode", "options", "call"]

    /// `sessions:`, in the order written; at least one.
    mutating func readSessions(_ node: YAMLNode) throws {
        let mapping = try yaml.mapping(node, "sessions")
        guard !mapping.isEmpty else {
            throw yaml.error(at: node, "sessions: the scenario declares no session; declare at least one")
        }
        for entry in mapping.entries {
            sessions.append(try readSession(entry))
        }
    }

    private func readSession(_ entry: StrictMapping.Entry) throws -> SessionSpec {
        let label = "session '\(entry.key)'"
        // `music:` with nothing after it is a session with C1's defaults, like `music: {}`.
        let mapping = try yaml.mapping(
            entry.value.isNull ? .emptyMapping(at: entry.value.mark) : entry.value,
            label,
            allowedKeys: Self.sessionKeys
        )
        var declaration = SessionDeclaration(appName: entry.key)
        declaration.appState =
            try mapping.optional("appState") { node, label in
                try yaml.choice(node, label, noun: "an app state", [AppState.foreground, .background])
            } ?? .foreground

        if let stream = mapping["stream"] {
            if let aware = mapping.entries.first(where: { Self.keysOfAwareSessions.contains($0.key) }) {
                throw yaml.error(
                    at: aware.keyNode,
                    "\(label): '\(aware.key)' cannot go with 'stream': an unaware app's session is classified by"
                        + " the configured rules; remove one of the two"
                )
            }
            declaration.unawareStreamProperties = try streamProperties(stream, mapping.label(of: "stream"))
        } else {
            declaration.category = try mapping.optional("category", yaml.category) ?? .soloAmbient
            declaration.mode = try mapping.optional("mode", yaml.mode) ?? .default
            let options = try mapping.optional("options", yaml.options) ?? WrittenOptions()
            try yaml.checkLegal(
                category: declaration.category,
                mode: declaration.mode,
                modeNode: mapping["mode"],
                options: options,
                in: mapping
            )
            declaration.options = options.set
            declaration.isCall = try mapping.optional("call", yaml.bool) ?? false
        }
        var spec = SessionSpec(name: entry.key, declaration: declaration, location: yaml.location(of: entry.keyNode))
        try readPlayer(mapping, into: &spec)
        return spec
    }

    /// Section 6b: `mediaPlayer: true` makes an unaware app (`stream:`) a player; `answers: false` makes it one
    /// that never obeys the daemon (P6).
    private func readPlayer(_ mapping: StrictMapping, into spec: inout SessionSpec) throws {
        if let node = mapping["mediaPlayer"] {
            guard spec.isUnaware else {
                throw yaml.error(
                    at: mapping.entries.first { $0.key == "mediaPlayer" }!.keyNode,
                    "\(mapping.label): 'mediaPlayer' goes only with 'stream:': a player is an unaware app the daemon"
                        + " finds a media-player interface for (POLICY section 6b)"
                )
            }
            spec.declaration.isMediaPlayer = try yaml.bool(node, mapping.label(of: "mediaPlayer"))
        }
        if let node = mapping["answers"] {
            guard spec.isMediaPlayer else {
                throw yaml.error(
                    at: mapping.entries.first { $0.key == "answers" }!.keyNode,
                    "\(mapping.label): 'answers' goes only with 'mediaPlayer: true': it says whether the player"
                        + " obeys the daemon's pause and play"
                )
            }
            spec.playerAnswers = try yaml.bool(node, mapping.label(of: "answers"))
        }
    }

    private func streamProperties(_ node: YAMLNode, _ label: String) throws -> [String: String] {
        let mapping = try yaml.mapping(node, label, allowedKeys: ClassificationRule.matchableProperties)
        var properties: [String: String] = [:]
        for entry in mapping.entries {
            properties[entry.key] = try yaml.string(entry.value, mapping.label(of: entry.key))
        }
        return properties
    }
}
