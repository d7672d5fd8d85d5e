internal import CYAML

/// One libyaml parse event, its strings copied out so that the C event can be freed at once.
struct YAMLEvent {
    enum Kind {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias(anchor: String)
        /// `tag` is nil when the scalar is plain and untagged: its text decides.
        case scalar(value: String, anchor: String?, tag: YAMLTag?)
        case sequenceStart(anchor: String?, tag: YAMLTag?)
        case sequenceEnd
        case mappingStart(anchor: String?, tag: YAMLTag?)
        case mappingEnd
    }

    let kind: Kind
    let mark: YAMLMark
}

/// A libyaml parser over a copy of the text, handing out its events in order. Not thread-safe; one use.
final class YAMLEvents {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>

    init(_ text: String) {
        input = .allocate(capacity: max(text.utf8.count, 1))
        _ = input.initialize(from: text.utf8)
        parser = .allocate(capacity: 1)
        yaml_parser_initialize(parser)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, text.utf8.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    func next() throws(YAMLSyntaxError) -> YAMLEvent {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw error() }
        defer { yaml_event_delete(&event) }
        let mark = Self.mark(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT: return YAMLEvent(kind: .streamStart, mark: mark)
        case YAML_DOCUMENT_START_EVENT: return YAMLEvent(kind: .documentStart, mark: mark)
        case YAML_DOCUMENT_END_EVENT: return YAMLEvent(kind: .documentEnd, mark: mark)
        case YAML_ALIAS_EVENT:
            return YAMLEvent(kind: .alias(anchor: Self.string(event.data.alias.anchor) ?? ""), mark: mark)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            // A quoted scalar is a string whatever its text; a plain one without a tag is resolved by its text.
            let tag = scalar.quoted_implicit != 0 ? .string : Self.string(scalar.tag).map(YAMLTag.init(name:))
            return YAMLEvent(kind: .scalar(value: value, anchor: Self.string(scalar.anchor), tag: tag), mark: mark)
        case YAML_SEQUENCE_START_EVENT:
            let start = event.data.sequence_start
            let tag = start.implicit != 0 ? nil : Self.string(start.tag).map(YAMLTag.init(name:))
            return YAMLEvent(kind: .sequenceStart(anchor: Self.string(start.anchor), tag: tag), mark: mark)
        case YAML_SEQUENCE_END_EVENT: return YAMLEvent(kind: .sequenceEnd, mark: mark)
        case YAML_MAPPING_START_EVENT:
            let start = event.data.mapping_start
            let tag = start.implicit != 0 ? nil : Self.string(start.tag).map(YAMLTag.init(name:))
            return YAMLEvent(kind: .mappingStart(anchor: Self.string(start.anchor), tag: tag), mark: mark)
        case YAML_MAPPING_END_EVENT: return YAMLEvent(kind: .mappingEnd, mark: mark)
        default: return YAMLEvent(kind: .streamEnd, mark: mark)
        }
    }

    /// The parser's error, in libyaml's words.
    private func error() -> YAMLSyntaxError {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown problem"
        switch state.error {
        case YAML_MEMORY_ERROR: return .outOfMemory
        case YAML_READER_ERROR: return .unreadable(problem: problem, byteOffset: Int(state.problem_offset))
        default:
            let context = state.context.map {
                YAMLSyntaxError.Context(text: String(cString: $0), mark: Self.mark(state.context_mark))
            }
            return .invalid(problem: problem, mark: Self.mark(state.problem_mark), context: context)
        }
    }

    private static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }
}
