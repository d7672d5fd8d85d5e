import Foundation
import Yams

extension StrictYAML {
    /// Reads a whole file as UTF-8 text; a missing or unreadable file is an error at its first line.
    static func readFile(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "the file is not UTF-8 text")
        }
        return text
    }

    /// `text` without the byte order mark that some editors put at the start of UTF-8 files: libyaml rejects it
    /// in a string, and it would hide a `# covers:` comment on the first line.
    static func withoutByteOrderMark(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}"
            ? String(String.UnicodeScalarView(text.unicodeScalars.dropFirst())) : text
    }

    /// Parses `text` into one YAML tree. Syntax errors become errors at the line and column the parser reports;
    /// a file with no content at all (nothing, or only comments) is an error too, naming `expected`.
    func compose(_ text: String, expected: String) throws -> Node {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw syntaxError(error, in: text)
        }
        guard let root else {
            throw ScenarioError(
                SourceLocation(file: file, line: 1, column: 1),
                "the file is empty; expected \(expected)"
            )
        }
        return root
    }

    private func syntaxError(_ error: any Error, in text: String) -> ScenarioError {
        guard let yamlError = error as? YamlError else {
            return ScenarioError(SourceLocation(file: file, line: 1, column: 1), "invalid YAML: \(error)")
        }
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let started = context.map { " (\($0.text) from line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return ScenarioError(at(mark.line, mark.column), "invalid YAML: \(problem)\(started)")
        case .reader(let problem, let offset, _, _):
            let (line, column) = offset.map { Self.lineAndColumn(ofCharacterOffset: $0, in: text) } ?? (1, 1)
            return ScenarioError(at(line, column), "unreadable text: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let duplicate = DuplicateKey(key: duplicates.first ?? "?", first: context.mark, text: text)
            return ScenarioError(at(context.mark.line, context.mark.column), duplicate.message)
        default:
            return ScenarioError(locationInDescription(of: yamlError), "invalid YAML: \(yamlError)")
        }
    }

    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: file, line: max(line, 1), column: max(column, 1))
    }

    /// Yams' descriptions start with `line:column:` where they know a position.
    private func locationInDescription(of error: YamlError) -> SourceLocation {
        let numbers = String(describing: error).split(separator: ":", maxSplits: 2).prefix(2).compactMap { Int($0) }
        return numbers.count == 2 ? at(numbers[0], numbers[1]) : at(1, 1)
    }

    static func lineAndColumn(ofCharacterOffset offset: Int, in text: String) -> (Int, Int) {
        var line = 1
        var column = 1
        for character in text.prefix(offset) {
            if character.isNewline {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}
