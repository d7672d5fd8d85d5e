/// A small writer of SVG text: elements with attributes in the order given, text escaped, numbers in one fixed
/// form, so that the same picture is always the same bytes.
struct TimelineXML {
    private(set) var text = ""
    private var depth = 0

    /// `<name a="1">`, with the elements `body` writes inside it, then `</name>`.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], body: (inout TimelineXML) -> Void) {
        line("<\(name)\(Self.attributes(attributes))>")
        depth += 1
        body(&self)
        depth -= 1
        line("</\(name)>")
    }

    /// `<name a="1"/>`.
    mutating func empty(_ name: String, _ attributes: [(String, String)]) {
        line("<\(name)\(Self.attributes(attributes))/>")
    }

    /// `<name a="1">text</name>`.
    mutating func leaf(_ name: String, _ attributes: [(String, String)] = [], text content: String) {
        line("<\(name)\(Self.attributes(attributes))>\(Self.escape(content))</\(name)>")
    }

    /// A shape with a hover text: `<rect .../>` becomes `<rect ...><title>why</title></rect>`.
    mutating func shape(_ name: String, _ attributes: [(String, String)], title: String) {
        element(name, attributes) { $0.leaf("title", text: title) }
    }

    /// A line of text as is: the XML declaration.
    mutating func raw(_ content: String) { line(content) }

    private mutating func line(_ content: String) {
        text += String(repeating: " ", count: depth) + content + "\n"
    }

    private static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// Text safe in an element or a quoted attribute: markup characters become references, and characters
    /// XML 1.0 does not allow at all become U+FFFD.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n": escaped.unicodeScalars.append(scalar)
            case "\r": escaped += "&#13;"
            default:
                let allowed =
                    scalar.value >= 0x20 && !(0xFFFE...0xFFFF).contains(scalar.value)
                    && !(0x7F...0x9F).contains(scalar.value)
                escaped.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return escaped
    }

    /// A coordinate or size: at most one decimal, no exponent, "12" rather than "12.0".
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let whole = abs(tenths) / 10
        let fraction = abs(tenths) % 10
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }
}
