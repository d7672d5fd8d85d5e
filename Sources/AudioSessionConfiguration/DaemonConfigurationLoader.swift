import AudioSessionPolicy
import YAMLBackend

/// Reads the daemon's configuration file: the policy keys (as a scenario's `config:` takes them) plus `ports`,
/// `alsa`, `platform`, `socket` and `logLevel`. Strict, and read to the end like a compiler reads a source file: a
/// `ConfigurationError` names every unknown key (with a suggestion when it looks like a known one misspelt) and
/// every wrong value at its `file:line:column` with its field.
public enum DaemonConfigurationLoader: Sendable {
    public static let daemonKeys = ["ports", "alsa", "platform", "socket", "logLevel"]
    public static let platformKeys = ["feedbackd", "lock"]
    public static let socketKeys = ["path", "mode", "group"]
    public static let portRuleKeys = ["match", "port"]
    static let portsKeys = ["outputs", "inputs"]
    static let alsaKeys = ["mixer", "jacks"]
    static let mixerKeys = ["card", "control"]
    static let jacksKeys = ["card", "ports"]
    static let jackRuleKeys = ["jack", "port"]

    static var keys: [String] { PolicyConfigLoader.keys + daemonKeys }
    static var expected: String { "a mapping of \(keys.joined(separator: ", ")) (or {})" }

    /// Reads the file at `path`, then the drop-in files of `path.d` (`addDropIns`). Throws a
    /// `ConfigurationError` with every issue of the first file that has any, or with the one reason it cannot
    /// be read.
    public static func load(path: String) throws -> DaemonConfiguration {
        var configuration = try ConfigurationFile.load(path: path, keys: keys, expected: expected) {
            try read($0, $1)
        }
        try addDropIns(of: path, to: &configuration)
        return configuration
    }

    /// Reads a configuration from YAML text; `file` names it in errors. Throws a `ConfigurationError`.
    public static func parse(yaml text: String, file: String) throws -> DaemonConfiguration {
        try ConfigurationFile.parse(text, file: file, keys: keys, expected: expected) { try read($0, $1) }
    }

    static func read(_ mapping: StrictMapping, _ yaml: StrictYAML) throws -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        (configuration.policy, configuration.callExemptClients) = try PolicyConfigLoader.read(
            mapping,
            yaml,
            takesClients: true
        )
        if let ports = try mapping.recovered("ports", { try parsePorts($0, yaml, label: $1) }) {
            configuration.ports = ports
        }
        if let alsa = try mapping.recovered("alsa", { try parseAlsa($0, yaml, label: $1) }) {
            configuration.alsa = alsa
        }
        if let platform = try mapping.recovered("platform", { try yaml.mapping($0, $1, allowedKeys: platformKeys) }) {
            if let feedbackd = try platform.recovered("feedbackd", yaml.bool) {
                configuration.platform.feedbackd = feedbackd
            }
            if let lock = try platform.recovered(
                "lock",
                { node, label in
                    try yaml.choice(node, label, noun: "a lock source", PlatformSettings.LockSource.allCases)
                }
            ) {
                configuration.platform.lock = lock
            }
        }
        if let socket = try mapping.recovered("socket", { try yaml.mapping($0, $1, allowedKeys: socketKeys) }) {
            configuration.socketPath = try socket.recovered("path", yaml.string)
            configuration.socketGroup = try socket.recovered("group", yaml.string)
            if let mode = try socket.recovered("mode", { try parseMode($0, yaml, label: $1) }) {
                configuration.socketMode = mode
            }
        }
        if let level = try mapping.recovered(
            "logLevel",
            { node, label in
                try yaml.choice(node, label, noun: "a log level", DaemonConfiguration.logLevels.map { ($0, $0) })
            }
        ) {
            configuration.logLevel = level
        }
        return configuration
    }

    /// `ports: { outputs: [...], inputs: [...] }`; each list, when given, replaces the default one.
    private static func parsePorts(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> PortRules {
        let mapping = try yaml.mapping(node, label, allowedKeys: portsKeys)
        var rules = PortRules.standard
        if let outputs = try mapping.recovered("outputs", { try parseRules($0, yaml, label: $1, wantOutput: true) }) {
            rules.outputs = outputs
        }
        if let inputs = try mapping.recovered("inputs", { try parseRules($0, yaml, label: $1, wantOutput: false) }) {
            rules.inputs = inputs
        }
        return rules
    }

    private static func parseRules(_ node: YAMLNode, _ yaml: StrictYAML, label: String, wantOutput: Bool) throws
        -> [PortRule]
    {
        try yaml.sequence(node, label).enumerated().compactMap { index, item in
            let ruleLabel = yaml.label(label, item: index, inScenario: "\(label) rule \(index + 1)")
            return try yaml.recover { () throws -> PortRule? in
                let mapping = try yaml.mapping(item, ruleLabel, allowedKeys: portRuleKeys)
                let port = try yaml.recover {
                    try yaml.port(
                        mapping.required("port"),
                        mapping.label(of: "port"),
                        direction: wantOutput ? .output : .input
                    )
                }
                let match = try mapping.recovered("match") { try parseMatch($0, yaml, label: $1) }
                return port.map { PortRule(match: match ?? [:], port: $0) }
            } ?? nil
        }
    }

    /// A rule's `match`: property names to a value or a list of values (any property: devices have many).
    private static func parseMatch(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> [String: [String]] {
        if node.isNull { return [:] }
        let fields = try yaml.mapping(node, label)
        var match: [String: [String]] = [:]
        for entry in fields.entries {
            let valueLabel = fields.label(of: entry.key)
            if let values = try yaml.recover({ try stringOrList(entry.value, yaml, label: valueLabel) }) {
                match[entry.key] = values
            }
        }
        return match
    }

    private static func stringOrList(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> [String] {
        if case .sequence = node { return try yaml.stringList(node, label) }
        return [try yaml.string(node, label)]
    }

    /// `alsa: { mixer: {card, control} or null, jacks: {card, ports: [{jack, port}]} or null }`; a key left out
    /// keeps the default, `null` turns that part off.
    private static func parseAlsa(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> AlsaSettings {
        let mapping = try yaml.mapping(node, label, allowedKeys: alsaKeys)
        var settings = AlsaSettings.standard
        if let mixer = mapping["mixer"], mixer.isNull {
            settings.mixer = nil
        } else if let fields = try mapping.recovered("mixer", { try yaml.mapping($0, $1, allowedKeys: mixerKeys) }) {
            settings.mixer = MixerControlName(
                card: try fields.recovered("card", yaml.string) ?? "default",
                control: try fields.recovered("control", yaml.string) ?? "Master"
            )
        }
        if let jacks = mapping["jacks"], jacks.isNull {
            settings.jackCard = nil
        } else if let fields = try mapping.recovered("jacks", { try yaml.mapping($0, $1, allowedKeys: jacksKeys) }) {
            if let card = fields["card"], card.isNull {
                settings.jackCard = nil
            } else if let card = try fields.recovered("card", yaml.string) {
                settings.jackCard = card
            }
            if let rules = try fields.recovered("ports", { try parseJackRules($0, yaml, label: $1) }) {
                settings.jackRules = rules
            }
        }
        return settings
    }

    private static func parseJackRules(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> [PortRule] {
        try yaml.sequence(node, label).enumerated().compactMap { index, item in
            let ruleLabel = yaml.label(label, item: index, inScenario: "\(label) rule \(index + 1)")
            return try yaml.recover { () throws -> PortRule? in
                let mapping = try yaml.mapping(item, ruleLabel, allowedKeys: jackRuleKeys)
                let patterns = try yaml.recover {
                    try stringOrList(mapping.required("jack"), yaml, label: mapping.label(of: "jack"))
                }
                let port = try yaml.recover { try yaml.port(mapping.required("port"), mapping.label(of: "port")) }
                guard let patterns, let port else { return nil }
                return PortRule(match: ["jack.name": patterns], port: port)
            } ?? nil
        }
    }

    /// A mode written as octal text ("0660") or a YAML octal number (0o660).
    private static func parseMode(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> Int {
        let text = try yaml.string(node, label)
        let digits = text.hasPrefix("0o") ? String(text.dropFirst(2)) : text
        guard let mode = Int(digits, radix: 8), (0...0o777).contains(mode) else {
            throw yaml.issue(
                at: node,
                label,
                "'\(text)' is not a permission mode",
                "expected octal digits from 0000 to 0777, e.g. \"0600\""
            )
        }
        return mode
    }
}
