import FoundationEssentials
import YAMLBackend

#if canImport(Glibc)
    import Glibc
#endif

/// A key written twice in one mapping. The composer refuses it, before the loader sees the tree, and
/// reports only the first of the two; a person fixing the file needs both lines, and to know when the key is a
/// session's name. So this looks at the text around the first one: a plain textual search, good for the block
/// and single-line flow mappings that scenario files use.
struct DuplicateKey {
    let key: String
    /// Where the composer says the first of the two is.
    let first: YAMLMark
    let text: String

    var message: String {
        let lines =
            switch repeatedLine {
            case first.line: "line \(first.line), twice"
            case let line?: "lines \(first.line) and \(line)"
            case nil: "line \(first.line) and again later"
            }
        let enclosing = enclosingKey
        if enclosing?.key == "sessions", enclosing?.isTopLevel == true {
            return "duplicate session '\(key)' at \(lines); each session needs a name of its own"
        }
        let place = enclosing.map { " in '\($0.key)'" } ?? ""
        return "duplicate key '\(key)'\(place) at \(lines); a key may appear only once in a mapping"
    }

    private var lines: [[Unicode.Scalar]] {
        // In Unicode scalars, as libyaml counts columns; a "\r\n" would be one Character.
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
    }

    /// The line of the second one: on the same line (a flow mapping `{a: 1, a: 2}`), else further down at the
    /// same indentation before the mapping ends (a line indented less). Nil when not found.
    var repeatedLine: Int? {
        let lines = self.lines
        guard first.line >= 1, first.line <= lines.count else { return nil }
        let keyScalars = Array(key.unicodeScalars)
        let firstLine = lines[first.line - 1]
        var index = first.column - 1 + keyScalars.count
        while index < firstLine.count {
            if index > 0, [",", "{", " "].contains(firstLine[index - 1]),
                Self.hasKey(keyScalars, in: firstLine, at: index)
            {
                return first.line
            }
            index += 1
        }
        let keyColumn = first.column - 1
        for lineIndex in first.line..<lines.count {
            let line = lines[lineIndex]
            guard let indent = line.firstIndex(where: { $0 != " " }), line[indent] != "#" else { continue }
            if indent < keyColumn { return nil }
            if indent == keyColumn, Self.hasKey(keyScalars, in: line, at: indent) { return lineIndex + 1 }
        }
        return nil
    }

    /// The key whose value is the mapping with the duplicate: the key before the `{` on the same line (flow
    /// style), else the nearest line above indented less (block style). Nil for a mapping in a list.
    var enclosingKey: (key: String, isTopLevel: Bool)? {
        let lines = self.lines
        guard first.line >= 1, first.line <= lines.count else { return nil }
        let firstLine = lines[first.line - 1]
        let keyColumn = min(max(first.column - 1, 0), firstLine.count)
        if let brace = firstLine[..<keyColumn].lastIndex(of: "{") {
            let head = Array(firstLine[..<brace])
            return Self.keyEnding(in: head).map { ($0, head.first != " " && head.first != "-") }
        }
        if firstLine[..<keyColumn].contains("-") { return nil }
        for lineIndex in stride(from: first.line - 2, through: 0, by: -1) {
            let line = lines[lineIndex]
            guard let indent = line.firstIndex(where: { $0 != " " }), line[indent] != "#" else { continue }
            let content = line.firstIndex(where: { $0 != " " && $0 != "-" }) ?? indent
            if line[indent] == "-", content == keyColumn { return nil }
            if indent < keyColumn { return Self.keyEnding(in: line).map { ($0, indent == 0) } }
        }
        return nil
    }

    /// The last `key:` in a line that ends with it (`sessions:`, `  - expect: { sessions:`).
    private static func keyEnding(in line: [Unicode.Scalar]) -> String? {
        var text = String(String.UnicodeScalarView(line))
        if let comment = text.firstRange(of: " #") { text = String(text[..<comment.lowerBound]) }
        text = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        guard text.hasSuffix(":") else { return nil }
        let key = text.dropLast().split(whereSeparator: { " -{,".contains($0) }).last
        return key.map(String.init)
    }

    /// Whether `line` has `key`, plain or quoted, followed by a colon, at `index`.
    private static func hasKey(_ key: [Unicode.Scalar], in line: [Unicode.Scalar], at index: Int) -> Bool {
        var position = index
        let quote = position < line.count && (line[position] == "\"" || line[position] == "'") ? line[position] : nil
        if quote != nil { position += 1 }
        guard position + key.count <= line.count, Array(line[position..<position + key.count]) == key else {
            return false
        }
        position += key.count
        if let quote {
            guard position < line.count, line[position] == quote else { return false }
            position += 1
        }
        while position < line.count, line[position] == " " { position += 1 }
        return position < line.count && line[position] == ":"
    }
}
