/// What a node is, by YAML's tags: an explicit one (`!!int 5`), a quoted scalar's (always a string), or the one
/// a plain scalar's text resolves to under YAML 1.1's rules (`yes` is a bool, `0o17` an int, `~` null).
public enum YAMLTag: Sendable, Equatable {
    case null
    case bool
    case int
    case float
    case string
    case sequence
    case mapping
    /// Any other tag, by its full name (`tag:yaml.org,2002:timestamp`, `!local`).
    case other(String)

    static let prefix = "tag:yaml.org,2002:"

    /// The tag named `name`, as libyaml gives it (handles expanded: `!!int` is `tag:yaml.org,2002:int`).
    init(name: String) {
        switch name {
        case Self.prefix + "null": self = .null
        case Self.prefix + "bool": self = .bool
        case Self.prefix + "int": self = .int
        case Self.prefix + "float": self = .float
        case Self.prefix + "str": self = .string
        case Self.prefix + "seq": self = .sequence
        case Self.prefix + "map": self = .mapping
        default: self = .other(name)
        }
    }

    /// The tag a plain scalar resolves to, first match in YAML 1.1's order: bool, int, float, null; anything
    /// else is a string. (YAML 1.1 also names merge keys, timestamps and `=`; read as text, they are strings
    /// here, as nothing in these files takes them.)
    public static func resolving(plain text: String) -> YAMLTag {
        let bytes = Array(text.utf8)
        if Self.boolWords.contains(text) { return .bool }
        if Self.isInt(bytes[...]) { return .int }
        if Self.isFloat(bytes[...]) { return .float }
        if Self.nullWords.contains(text) { return .null }
        return .string
    }

    static let boolWords: Set<String> = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF",
    ]
    static let nullWords: Set<String> = ["~", "null", "Null", "NULL", ""]
}

/// YAML 1.1's int and float forms, matched by hand (no regular expressions: they would bring in ICU).
extension YAMLTag {
    typealias Text = ArraySlice<UInt8>

    /// `[-+]?` then one of: `0b[01_]+`, `0o?[0-7_]+`, `0`, `[1-9][0-9_]*`, `0x[0-9a-fA-F_]+`, and the
    /// sexagesimal `[1-9][0-9_]*(:[0-5]?[0-9])+`.
    static func isInt(_ text: Text) -> Bool {
        let digits = withoutSign(text)
        return prefixed("0b", digits, allOf: "01_") || octal(digits) || digits.elementsEqual("0".utf8)
            || decimal(digits) || prefixed("0x", digits, allOf: "0123456789abcdefABCDEF_") || sexagesimal(digits)
    }

    /// `[-+]?` then `[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?`, `[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*` or
    /// `\.(inf|Inf|INF)`; or, unsigned, `\.[0-9_]+([eE][-+][0-9]+)?` or `\.(nan|NaN|NAN)`.
    static func isFloat(_ text: Text) -> Bool {
        let unsigned = withoutSign(text)
        if pointed(unsigned) || [".inf", ".Inf", ".INF"].contains(where: { unsigned.elementsEqual($0.utf8) }) {
            return true
        }
        if let dot = unsigned.firstIndex(of: UInt8(ascii: ".")), sexagesimal(unsigned[..<dot], leadingZero: true) {
            return all(unsigned[(dot + 1)...], of: "0123456789_")
        }
        return fractionFirst(text) || [".nan", ".NaN", ".NAN"].contains(where: { text.elementsEqual($0.utf8) })
    }

    private static func withoutSign(_ text: Text) -> Text {
        guard let first = text.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return text }
        return text.dropFirst()
    }

    private static func all(_ text: Text, of allowed: String) -> Bool {
        text.allSatisfy { allowed.utf8.contains($0) }
    }

    private static func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `prefix` followed by one or more of `allowed`.
    private static func prefixed(_ prefix: String, _ text: Text, allOf allowed: String) -> Bool {
        guard text.starts(with: prefix.utf8) else { return false }
        let rest = text.dropFirst(prefix.utf8.count)
        return !rest.isEmpty && all(rest, of: allowed)
    }

    /// `0o?[0-7_]+`.
    private static func octal(_ text: Text) -> Bool {
        guard text.first == UInt8(ascii: "0") else { return false }
        var rest = text.dropFirst()
        if rest.first == UInt8(ascii: "o") { rest = rest.dropFirst() }
        return !rest.isEmpty && all(rest, of: "01234567_")
    }

    /// `[1-9][0-9_]*`.
    private static func decimal(_ text: Text) -> Bool {
        guard let first = text.first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
        return all(text.dropFirst(), of: "0123456789_")
    }

    /// `[1-9][0-9_]*(:[0-5]?[0-9])+` as an int; a float's whole part takes `[0-9]` first, hence `leadingZero`.
    private static func sexagesimal(_ text: Text, leadingZero: Bool = false) -> Bool {
        let parts = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count >= 2, let head = parts.first else { return false }
        let headMatches =
            leadingZero ? (isDigit(head.first) && all(head.dropFirst(), of: "0123456789_")) : decimal(head)
        return headMatches
            && parts.dropFirst().allSatisfy { part in
                switch part.count {
                case 1: isDigit(part.first)
                case 2: (UInt8(ascii: "0")...UInt8(ascii: "5")).contains(part.first!) && isDigit(part.last)
                default: false
                }
            }
    }

    /// `[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?`.
    private static func pointed(_ text: Text) -> Bool {
        guard isDigit(text.first) else { return false }
        var rest = text.drop { isDigit($0) || $0 == UInt8(ascii: "_") }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst().drop { isDigit($0) || $0 == UInt8(ascii: "_") }
        }
        guard let exponent = rest.first else { return true }
        guard exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") else { return false }
        let digits = withoutSign(rest.dropFirst())
        return !digits.isEmpty && digits.allSatisfy { isDigit($0) }
    }

    /// `\.[0-9_]+([eE][-+][0-9]+)?`, unsigned.
    private static func fractionFirst(_ text: Text) -> Bool {
        guard text.first == UInt8(ascii: ".") else { return false }
        let fraction = text.dropFirst().prefix { isDigit($0) || $0 == UInt8(ascii: "_") }
        guard !fraction.isEmpty else { return false }
        let rest = text.dropFirst(1 + fraction.count)
        guard let exponent = rest.first else { return true }
        guard exponent == UInt8(ascii: "e") || exponent == UInt8(ascii: "E") else { return false }
        let signed = rest.dropFirst()
        guard signed.first == UInt8(ascii: "-") || signed.first == UInt8(ascii: "+") else { return false }
        let digits = signed.dropFirst()
        return !digits.isEmpty && digits.allSatisfy { isDigit($0) }
    }
}
