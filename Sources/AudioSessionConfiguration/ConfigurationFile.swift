import YAMLBackend

/// Reads a whole configuration file the way a compiler reads a source file: every issue in it is collected,
/// each field that has one keeps its default meanwhile, and when there is any the file is refused with all of
/// them in one `ConfigurationError`.
enum ConfigurationFile {
    /// Reads the file at `path`; see `parse`.
    static func load<Value>(
        path: String,
        keys: [String],
        expected: String,
        read: (StrictMapping, StrictYAML) throws -> Value
    ) throws -> Value {
        let text: String
        do {
            text = try StrictYAML.readFile(path)
        } catch let issue as ConfigurationIssue {
            throw ConfigurationError(code: .unreadableFile, file: path, issues: [issue])
        }
        return try parse(text, file: path, keys: keys, expected: expected, read: read)
    }

    /// Reads `text`, a mapping of `keys` at the top, with `read`. A syntax error is alone (the parser cannot go
    /// past it); anything else is noted where it is and reading goes on. `expected` describes the whole file
    /// for the messages of an empty file or one that is not a mapping.
    static func parse<Value>(
        _ text: String,
        file: String,
        keys: [String],
        expected: String,
        read: (StrictMapping, StrictYAML) throws -> Value
    ) throws -> Value {
        let issues = IssueList()
        let yaml = StrictYAML(file: file, collecting: issues)
        let root: YAMLNode
        do {
            root = try yaml.compose(StrictYAML.withoutByteOrderMark(text), expected: expected)
        } catch let issue as ConfigurationIssue {
            throw ConfigurationError(code: .invalidSyntax, file: file, issues: [issue])
        }
        let value = try yaml.recover {
            try read(yaml.mapping(root, "", allowedKeys: keys, expected: expected), yaml)
        }
        guard let value, issues.issues.isEmpty else {
            throw ConfigurationError(code: .invalidValues, file: file, issues: issues.issues)
        }
        return value
    }
}
