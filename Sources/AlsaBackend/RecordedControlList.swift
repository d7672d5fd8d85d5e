/// Reads the jacks out of a recorded control list: the output of `amixer -c N contents`, as kept for
/// fixtures and bug reports. Each control is a `numid=` line, a `  ; type=` line, optional item and `  |` TLV
/// lines, and a `  : values=` line; controls that are not jacks are checked for shape and skipped.
public enum RecordedControlList {
    /// The jacks in `text`, in order. `source` (a file name) prefixes errors: `source:line: what was expected`.
    /// Throws `badControlList`.
    public static func parse(_ text: String, source: String) throws -> [JackControl] {
        var parser = Parser(source: source)
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            try parser.consume(line, number: offset + 1)
        }
        try parser.finish()
        return parser.jacks
    }

    private struct Control {
        var line: Int
        var name: String
        var iface: String
        var type: String?
        var sawValues = false
    }

    private struct Parser {
        let source: String
        var jacks: [JackControl] = []
        var current: Control?

        init(source: String) { self.source = source }

        mutating func consume(_ rawLine: Substring, number: Int) throws {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty { return }
            if line.hasPrefix("numid=") {
                try finish()
                let fields = try fields(line, number: number)
                guard let name = fields["name"], let iface = fields["iface"] else {
                    throw error(number, "expected numid=N,iface=IFACE,name='NAME', found '\(line)'")
                }
                current = Control(line: number, name: name, iface: iface)
            } else if trimmed.hasPrefix(";") {
                guard var control = current else {
                    throw error(number, "a '; type=' line must follow a 'numid=' line, found '\(line)'")
                }
                let body = trimmed.dropFirst().drop { $0 == " " }
                if control.type == nil {
                    guard body.hasPrefix("type="), let type = try fields(body, number: number)["type"] else {
                        throw error(number, "expected '  ; type=TYPE,access=...,values=N', found '\(line)'")
                    }
                    control.type = type
                    current = control
                }
                // Later ';' lines are the items of an enumerated control.
            } else if trimmed.hasPrefix("|") {
                // TLV data (dB scale): nothing to do with jacks.
            } else if trimmed.hasPrefix(":") {
                guard var control = current, control.type != nil else {
                    throw error(number, "a ': values=' line must follow a 'numid=' line and its '; type=' line")
                }
                let body = trimmed.dropFirst().drop { $0 == " " }
                guard body.hasPrefix("values=") else {
                    throw error(number, "expected '  : values=...', found '\(line)'")
                }
                guard !control.sawValues else {
                    throw error(number, "control '\(control.name)' (line \(control.line)) has a second values line")
                }
                control.sawValues = true
                current = control
                if isJack(control) {
                    let values = body.dropFirst("values=".count).split(separator: ",")
                    var plugged = false
                    for value in values {
                        switch value {
                        case "on": plugged = true
                        case "off": break
                        default:
                            throw error(number, "value '\(value)' of jack '\(control.name)' must be on or off")
                        }
                    }
                    guard !values.isEmpty else { throw error(number, "jack '\(control.name)' has no values") }
                    jacks.append(JackControl(name: control.name, isPlugged: plugged))
                }
            } else {
                throw error(
                    number,
                    "expected a 'numid=' line, a '  ; type=' line or a '  : values=' line, found '\(line)'"
                )
            }
        }

        /// Checks that the control being read is complete.
        mutating func finish() throws {
            defer { current = nil }
            guard let control = current else { return }
            guard control.type != nil else {
                throw error(control.line, "control '\(control.name)' has no '  ; type=' line")
            }
            guard control.sawValues else {
                throw error(control.line, "control '\(control.name)' has no '  : values=' line")
            }
        }

        private func isJack(_ control: Control) -> Bool {
            control.iface == "CARD" && control.type == "BOOLEAN" && JackControl.isJackName(control.name)
        }

        /// `key=value,key='quoted, value',...` as a dictionary.
        private func fields(_ text: Substring, number: Int) throws -> [String: String] {
            var fields: [String: String] = [:]
            var rest = text[...]
            while !rest.isEmpty {
                guard let equals = rest.firstIndex(of: "=") else {
                    throw error(number, "expected key=value in '\(text)', found '\(rest)'")
                }
                let key = String(rest[..<equals])
                rest = rest[rest.index(after: equals)...]
                let value: Substring
                if rest.hasPrefix("'") {
                    rest = rest.dropFirst()
                    guard let quote = rest.firstIndex(of: "'") else {
                        throw error(number, "the value of \(key) has no closing quote in '\(text)'")
                    }
                    value = rest[..<quote]
                    rest = rest[rest.index(after: quote)...]
                    guard rest.isEmpty || rest.hasPrefix(",") else {
                        throw error(number, "expected ',' after the quoted \(key) in '\(text)'")
                    }
                } else {
                    let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                    value = rest[..<comma]
                    rest = rest[comma...]
                }
                if rest.hasPrefix(",") { rest = rest.dropFirst() }
                fields[key] = String(value)
            }
            return fields
        }

        private func error(_ line: Int, _ message: String) -> AlsaError {
            AlsaError(code: .badControlList, message: "\(source):\(line): \(message)", path: source)
        }
    }
}
