/// Where a node or a problem starts in the text: line and column from 1, columns counted in Unicode scalars
/// (libyaml counts one per character, whatever its UTF-8 length).
public struct YAMLMark: Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

/// One node of a composed YAML document: a scalar, a list or a mapping, with where it starts. Aliases are
/// composed as the node they name, so a tree holds only these three.
public enum YAMLNode: Sendable {
    case scalar(Scalar)
    case sequence(Sequence)
    case mapping(Mapping)

    /// A scalar's text as written (quotes and escapes resolved) and its resolved tag.
    public struct Scalar: Sendable {
        public let string: String
        public let tag: YAMLTag
        public let mark: YAMLMark

        public init(_ string: String, tag: YAMLTag, mark: YAMLMark) {
            self.string = string
            self.tag = tag
            self.mark = mark
        }
    }

    /// A list's items, in order.
    public typealias Sequence = Contents<YAMLNode>
    /// A mapping's pairs, in the order the text writes them.
    public typealias Mapping = Contents<Pair>
    public typealias Pair = (key: YAMLNode, value: YAMLNode)

    /// A list's or a mapping's elements, with the collection's own tag and place.
    public struct Contents<Element: Sendable>: RandomAccessCollection, Sendable {
        public let elements: [Element]
        public let tag: YAMLTag
        public let mark: YAMLMark

        public init(_ elements: [Element], tag: YAMLTag, mark: YAMLMark) {
            self.elements = elements
            self.tag = tag
            self.mark = mark
        }

        public var startIndex: Int { elements.startIndex }
        public var endIndex: Int { elements.endIndex }
        public subscript(position: Int) -> Element { elements[position] }
    }

    public var mark: YAMLMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(let sequence): sequence.mark
        case .mapping(let mapping): mapping.mark
        }
    }

    public var tag: YAMLTag {
        switch self {
        case .scalar(let scalar): scalar.tag
        case .sequence(let sequence): sequence.tag
        case .mapping(let mapping): mapping.tag
        }
    }
}
