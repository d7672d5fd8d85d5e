import AudioSessionPolicy

/// The text of an exported scenario, in the format `docs/SCENARIOS.md` describes: free strings (session names,
/// stream properties) double-quoted, words of the vocabulary plain.
struct JournalScenarioText {
    private(set) var lines: [String] = []

    mutating func line(_ text: String) { lines.append(text) }

    mutating func comment(_ text: String, indent: String = "") {
        for part in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("\(indent)# \(part)")
        }
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// A YAML double-quoted string (JSON's escapes are YAML's).
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func list(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }

    static func flow(_ pairs: [(String, String)]) -> String {
        "{ " + pairs.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + " }"
    }

    static func duration(_ milliseconds: Int) -> String { "\(milliseconds)ms" }

    /// A session's expected state, as `expect.sessions` takes it.
    static func expectation(_ state: JournalSessionState) -> String {
        flow([
            ("state", state.state.rawValue),
            ("output", state.output.rawValue),
            ("input", state.input.rawValue),
            ("route", state.route?.rawValue ?? "none"),
            ("inputRoute", state.inputRoute?.rawValue ?? "none"),
            ("category", state.category.rawValue),
        ])
    }

    /// A notification, as `expect.notifications` takes it.
    static func notification(_ notification: JournalNotification, session: String) -> String? {
        let name = ("session", quoted(session))
        switch notification.type {
        case "interruptionBegan": return flow([name, ("interruption", "began")])
        case "interruptionEnded":
            return flow([
                name, ("interruption", "ended"), ("shouldResume", notification.shouldResume == true ? "true" : "false"),
            ])
        case "routeChange": return notification.reason.map { flow([name, ("routeChange", $0.rawValue)]) }
        case "silenceSecondaryAudioHint":
            return flow([name, ("silenceSecondaryAudioHint", notification.begins == true ? "begin" : "end")])
        case "mediaServicesLost": return flow([name, ("mediaServices", "lost")])
        case "mediaServicesReset": return flow([name, ("mediaServices", "reset")])
        default: return nil
        }
    }

    /// The policy configuration as a scenario's `config:`, for one that is not the standard one.
    mutating func config(_ config: JournalConfig) {
        line("config:")
        line("  duckLevel: \(config.duckLevel)")
        line("  duckFadeMs: \(config.duckFadeMs)")
        line("  graceMs: \(config.graceMs)")
        line("  callExemptApps: \(Self.list(config.callExemptApps.map(Self.quoted)))")
        line("  rules:")
        for rule in config.rules {
            let match = rule.match.sorted { $0.key < $1.key }.map { ($0.key, Self.list($0.value.map(Self.quoted))) }
            line("    - match: \(match.isEmpty ? "{}" : Self.flow(match))")
            line("      category: \(rule.category.rawValue)")
            line("      mode: \(rule.mode.rawValue)")
            line("      options: \(Self.list(rule.options))")
            line("      call: \(rule.call)")
            line("      notifyOthers: \(rule.notifyOthers)")
        }
    }
}
