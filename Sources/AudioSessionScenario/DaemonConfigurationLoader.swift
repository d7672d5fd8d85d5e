import AudioSessionPolicy
import Yams

/// Reads the daemon's configuration file: the policy keys (as a scenario's `config:` takes them) plus `ports`,
/// `socket` and `logLevel`. Strict like the scenario loader: an unknown key or a wrong value is an error at its
/// `file:line:column` naming the field.
public enum DaemonConfigurationLoader: Sendable {
    public static let daemonKeys = ["ports", "alsa", "socket", "logLevel"]
    public static let socketKeys = ["path", "mode", "group"]
    public static let portRuleKeys = ["match", "port"]

    public static func load(path: String) throws -> DaemonConfiguration {
        try parse(yaml: StrictYAML.readFile(path), file: path)
    }

    public static func parse(yaml text: String, file: String) throws -> DaemonConfiguration {
        let yaml = StrictYAML(file: file)
        let root = try yaml.compose(
            StrictYAML.withoutByteOrderMark(text),
            expected: "a mapping of \((PolicyConfigLoader.keys + daemonKeys).joined(separator: ", ")) (or {})"
        )
        var configuration = DaemonConfiguration()
        configuration.policy = try PolicyConfigLoader.parse(root, yaml, label: "configuration", otherKeys: daemonKeys)
        let mapping = try yaml.mapping(root, "configuration", allowedKeys: PolicyConfigLoader.keys + daemonKeys)
        if let ports = mapping["ports"] {
            configuration.ports = try parsePorts(ports, yaml, label: mapping.label(of: "ports"))
        }
        if let alsa = mapping["alsa"] {
            configuration.alsa = try parseAlsa(alsa, yaml, label: mapping.label(of: "alsa"))
        }
        if let socket = mapping["socket"] {
            let fields = try yaml.mapping(socket, mapping.label(of: "socket"), allowedKeys: socketKeys)
            configuration.socketPath = try fields.optional("path", yaml.string)
            configuration.socketGroup = try fields.optional("group", yaml.string)
            if let mode = fields["mode"] {
                configuration.socketMode = try parseMode(mode, yaml, label: fields.label(of: "mode"))
            }
        }
        if let level = mapping["logLevel"] {
            let word = try yaml.string(level, mapping.label(of: "logLevel"))
            guard DaemonConfiguration.logLevels.contains(word) else {
                throw yaml.error(at: level, "\(mapping.label(of: "logLevel")): '\(word)' is not a log level; expected one of: \(DaemonConfiguration.logLevels.joined(separator: ", "))")
            }
            configuration.logLevel = word
        }
        return configuration
    }

    /// `ports: { outputs: [...], inputs: [...] }`; each list, when given, replaces the default one.
    private static func parsePorts(_ node: Node, _ yaml: StrictYAML, label: String) throws -> PortRules {
        let mapping = try yaml.mapping(node, label, allowedKeys: ["outputs", "inputs"])
        var rules = PortRules.standard
        if let outputs = mapping["outputs"] {
            rules.outputs = try parseRules(outputs, yaml, label: mapping.label(of: "outputs"), wantOutput: true)
        }
        if let inputs = mapping["inputs"] {
            rules.inputs = try parseRules(inputs, yaml, label: mapping.label(of: "inputs"), wantOutput: false)
        }
        return rules
    }

    private static func parseRules(_ node: Node, _ yaml: StrictYAML, label: String, wantOutput: Bool) throws -> [PortRule] {
        try yaml.sequence(node, label).enumerated().map { index, item in
            let ruleLabel = "\(label) rule \(index + 1)"
            let mapping = try yaml.mapping(item, ruleLabel, allowedKeys: portRuleKeys)
            let portNode = try mapping.required("port")
            let name = try yaml.string(portNode, mapping.label(of: "port"))
            guard let port = Port(rawValue: name), wantOutput ? port.isOutput : port.isInput else {
                let valid = Port.allCases.filter { wantOutput ? $0.isOutput : $0.isInput }.map(\.rawValue)
                throw yaml.error(at: portNode, "\(mapping.label(of: "port")): '\(name)' is not an \(wantOutput ? "output" : "input") port; expected one of: \(valid.joined(separator: ", "))")
            }
            var match: [String: [String]] = [:]
            if let matchNode = mapping["match"], !matchNode.isNull {
                let fields = try yaml.mapping(matchNode, mapping.label(of: "match"))
                for entry in fields.entries {
                    let valueLabel = fields.label(of: entry.key)
                    match[entry.key] =
                        if case .sequence = entry.value {
                            try yaml.stringList(entry.value, valueLabel)
                        } else {
                            [try yaml.string(entry.value, valueLabel)]
                        }
                }
            }
            return PortRule(match: match, port: port)
        }
    }

    /// `alsa: { mixer: {card, control} or null, jacks: {card, ports: [{jack, port}]} or null }`; a key left out
    /// keeps the default, `null` turns that part off.
    private static func parseAlsa(_ node: Node, _ yaml: StrictYAML, label: String) throws -> AlsaSettings {
        let mapping = try yaml.mapping(node, label, allowedKeys: ["mixer", "jacks"])
        var settings = AlsaSettings.standard
        if let mixer = mapping["mixer"] {
            if mixer.isNull {
                settings.mixer = nil
            } else {
                let fields = try yaml.mapping(mixer, mapping.label(of: "mixer"), allowedKeys: ["card", "control"])
                settings.mixer = MixerControlName(
                    card: try fields.optional("card", yaml.string) ?? "default",
                    control: try fields.optional("control", yaml.string) ?? "Master"
                )
            }
        }
        if let jacks = mapping["jacks"] {
            if jacks.isNull {
                settings.jackCard = nil
            } else {
                let fields = try yaml.mapping(jacks, mapping.label(of: "jacks"), allowedKeys: ["card", "ports"])
                if let card = fields["card"] {
                    settings.jackCard = card.isNull ? nil : try yaml.string(card, fields.label(of: "card"))
                }
                if let ports = fields["ports"] {
                    settings.jackRules = try parseJackRules(ports, yaml, label: fields.label(of: "ports"))
                }
            }
        }
        return settings
    }

    private static func parseJackRules(_ node: Node, _ yaml: StrictYAML, label: String) throws -> [PortRule] {
        try yaml.sequence(node, label).enumerated().map { index, item in
            let ruleLabel = "\(label) rule \(index + 1)"
            let mapping = try yaml.mapping(item, ruleLabel, allowedKeys: ["jack", "port"])
            let jackNode = try mapping.required("jack")
            let patterns =
                if case .sequence = jackNode {
                    try yaml.stringList(jackNode, mapping.label(of: "jack"))
                } else {
                    [try yaml.string(jackNode, mapping.label(of: "jack"))]
                }
            let portNode = try mapping.required("port")
            let name = try yaml.string(portNode, mapping.label(of: "port"))
            guard let port = Port(rawValue: name) else {
                throw yaml.error(at: portNode, "\(mapping.label(of: "port")): '\(name)' is not a port; expected one of: \(Port.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return PortRule(match: ["jack.name": patterns], port: port)
        }
    }

    /// A mode written as octal text ("0660") or a YAML octal number (0o660).
    private static func parseMode(_ node: Node, _ yaml: StrictYAML, label: String) throws -> Int {
        let text = try yaml.string(node, label)
        let digits = text.hasPrefix("0o") ? String(text.dropFirst(2)) : text
        guard let mode = Int(digits, radix: 8), (0...0o777).contains(mode) else {
            throw yaml.error(at: node, "\(label): '\(text)' is not a permission mode; write it in octal, e.g. \"0600\"")
        }
        return mode
    }
}
