/// Why a text is not one YAML document, with where: libyaml's own words for its reader, scanner and parser
/// errors, or the composer's (an undefined alias, a duplicate key, a second document, a document too deep or
/// too large).
public enum YAMLSyntaxError: Error, Sendable, Equatable {
    /// libyaml could not read the text (a control character, say) at this byte offset.
    case unreadable(problem: String, byteOffset: Int)
    /// libyaml's scanner or parser, or the composer, stopped at `mark`; `context` is what it was reading then
    /// and where that began (`while parsing a block mapping`, line 3, column 1).
    case invalid(problem: String, mark: YAMLMark, context: Context?)
    /// A mapping has `key` more than once: the first of them is at `first` (of several such keys, the least).
    case duplicateKey(key: String, first: YAMLMark)
    /// libyaml ran out of memory.
    case outOfMemory

    public struct Context: Sendable, Equatable {
        public let text: String
        public let mark: YAMLMark

        public init(text: String, mark: YAMLMark) {
            self.text = text
            self.mark = mark
        }
    }
}
