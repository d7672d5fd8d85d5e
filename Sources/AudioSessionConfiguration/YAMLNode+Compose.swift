import YAMLBackend

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension StrictYAML {
    /// Reads a whole file as UTF-8 text. A file that cannot be opened or read is an issue with the system's
    /// reason (`No such file or directory`, `Permission denied`, `Is a directory`); one that is not UTF-8 is an
    /// issue at the first byte that is not, with its line and column.
    package static func readFile(_ path: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try readBytes(path)
        } catch let failure as ReadFailure {
            throw ConfigurationIssue(
                file: path,
                location: nil,
                field: "",
                problem: "cannot \(failure.step) the file: \(failure.reason)",
                expectation: ""
            )
        }
        if let offset = firstInvalidUTF8Offset(in: bytes) {
            let (line, column) = place(ofByte: offset, in: bytes)
            let byte = String(bytes[offset], radix: 16, uppercase: true)
            throw ConfigurationIssue(
                file: path,
                location: SourceLocation(file: path, line: line, column: column),
                field: "",
                problem:
                    "the file is not UTF-8 text: byte \(offset) (0x\(byte.count == 1 ? "0" : "")\(byte)) is not valid UTF-8",
                expectation: "expected UTF-8 text"
            )
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Why a file could not be read: the step that failed (`open`, `read`) and the system's words for `errno`.
    private struct ReadFailure: Error {
        let step: String
        let reason: String

        init(_ step: String) {
            self.step = step
            self.reason = String(cString: strerror(errno))
        }
    }

    /// The file's bytes, by open(2) and read(2), so that a failure keeps its errno. A directory opens, and its
    /// read fails with EISDIR.
    private static func readBytes(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadFailure("open") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure("read")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[..<count])
        }
    }

    /// The offset of the first byte that does not start well-formed UTF-8 (a stray byte, or the lead of a sequence
    /// cut short or malformed; RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), or nil when all
    /// is well formed.
    static func firstInvalidUTF8Offset(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return index
            }
            for position in 1..<max(length, 1) {
                guard index + position < bytes.count else { return index }
                let byte = bytes[index + position]
                // Only the first continuation byte has the narrower range.
                let range = position == 1 ? low...high : 0x80...0xBF
                guard range.contains(byte) else { return index }
            }
            index += length
        }
        return nil
    }

    /// `text` without the byte order mark that some editors put at the start of UTF-8 files: libyaml rejects it
    /// in a string, and it would hide a `# covers:` comment on the first line.
    package static func withoutByteOrderMark(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}"
            ? String(String.UnicodeScalarView(text.unicodeScalars.dropFirst())) : text
    }

    /// Parses `text` into one YAML tree. Syntax errors become errors at the line and column the parser reports;
    /// a file with no content at all (nothing, or only comments) is an error too, naming `expected`.
    package func compose(_ text: String, expected: String) throws -> YAMLNode {
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(text)
        } catch {
            throw syntaxError(error, in: text)
        }
        guard let root else {
            throw ConfigurationIssue(
                file: file,
                location: at(1, 1),
                field: "",
                problem: "the file is empty",
                expectation: "expected \(expected)"
            )
        }
        return root
    }

    private func syntaxError(_ error: YAMLSyntaxError, in text: String) -> ConfigurationIssue {
        switch error {
        case .invalid(let problem, let mark, let context):
            let started = context.map { " (\($0.text) from line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return syntaxIssue(at(mark.line, mark.column), "invalid YAML: \(problem)\(started)")
        case .unreadable(let problem, let byteOffset):
            let (line, column) = Self.place(ofByte: byteOffset, in: text.utf8)
            return syntaxIssue(at(line, column), "unreadable text: \(problem)")
        case .duplicateKey(let key, let first):
            let duplicate = DuplicateKey(key: key, first: first, text: text)
            return syntaxIssue(at(first.line, first.column), duplicate.message)
        case .outOfMemory:
            return syntaxIssue(at(1, 1), "invalid YAML: the parser ran out of memory")
        }
    }

    private func syntaxIssue(_ location: SourceLocation, _ problem: String) -> ConfigurationIssue {
        ConfigurationIssue(file: file, location: location, field: "", problem: problem, expectation: "")
    }

    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: file, line: max(line, 1), column: max(column, 1))
    }

    /// The line and column of the byte at `offset` (the reader's problems, and a byte that is not UTF-8, are
    /// reported by their byte offset): lines end at a newline, columns count characters as the YAML parser's
    /// do (Unicode scalars; the text before the byte decodes cleanly).
    static func place(ofByte offset: Int, in bytes: some BidirectionalCollection<UInt8>) -> (line: Int, column: Int) {
        let before = bytes.prefix(max(offset, 0))
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { before.index(after: $0) } ?? before.startIndex
        return (line, String(decoding: before[lineStart...], as: UTF8.self).unicodeScalars.count + 1)
    }
}
