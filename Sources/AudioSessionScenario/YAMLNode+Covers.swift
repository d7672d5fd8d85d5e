import AudioSessionConfiguration
import AudioSessionPolicy

extension StrictYAML {
    /// The rules named by `# covers: A4 D3` comments anywhere in `text` (IDs separated by spaces or commas, over as
    /// many lines as needed). YAML drops comments, so this reads the text itself. An unknown ID is an error at it,
    /// since a coverage report built on a typo would claim a rule is tested when it is not.
    func coveredRules(in text: String) throws -> Set<Rule> {
        var rules: Set<Rule> = []
        // Lines and columns in Unicode scalars, as libyaml counts them; a "\r\n" would be one Character.
        for (lineIndex, line) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            let scalars = Array(line)
            guard let listStart = Self.coversListStart(in: scalars) else { continue }
            var tokenStart: Int?
            var named = 0
            for index in listStart...scalars.count {
                let isSeparator = index == scalars.count || [" ", ",", "\t", "\r"].contains(scalars[index])
                if !isSeparator, tokenStart == nil { tokenStart = index }
                guard isSeparator, let start = tokenStart else { continue }
                tokenStart = nil
                let id = String(String.UnicodeScalarView(scalars[start..<index]))
                guard let rule = Rule(rawValue: id) else {
                    let known = Rule.allCases.map(\.rawValue).joined(separator: " ")
                    throw ScenarioError(
                        SourceLocation(file: file, line: lineIndex + 1, column: start + 1),
                        "'# covers:' names '\(id)', which is not a rule; expected rule IDs such as A4 D3: \(known)"
                    )
                }
                rules.insert(rule)
                named += 1
            }
            guard named > 0 else {
                throw ScenarioError(
                    SourceLocation(file: file, line: lineIndex + 1, column: listStart),
                    "'# covers:' names no rule; list rule IDs such as A4 D3"
                )
            }
        }
        return rules
    }

    /// Where the rule list begins if this line has a `# covers:` comment. A `#` starts a comment only at the start
    /// of a line or after a space, and not inside a quoted string.
    private static func coversListStart(in line: [Unicode.Scalar]) -> Int? {
        var quote: Unicode.Scalar?
        var index = 0
        while index < line.count {
            let scalar = line[index]
            if let open = quote {
                if scalar == "\\" && open == "\"" {
                    index += 1
                } else if scalar == open {
                    quote = nil
                }
            } else if scalar == "\"" || scalar == "'" {
                let previous = line[..<index].last { $0 != " " }
                if previous == nil || [":", "-", ",", "[", "{"].contains(previous) { quote = scalar }
            } else if scalar == "#", index == 0 || line[index - 1] == " " || line[index - 1] == "\t" {
                var start = index + 1
                while start < line.count, line[start] == " " { start += 1 }
                let keyword = Array("covers:".unicodeScalars)
                guard start + keyword.count <= line.count, Array(line[start..<start + keyword.count]) == keyword else {
                    return nil
                }
                return start + keyword.count
            }
            index += 1
        }
        return nil
    }
}
