internal import CYAML

/// Composes one YAML document from text with libyaml's parser: its events become `YAMLNode`s, aliases the
/// nodes they name, plain scalars get their resolved tags.
///
/// The files read this way may come from a shared directory, so a document is bounded: nesting deeper than
/// `nestingLimit` and more than `valueLimit` values (an alias counting as every value it stands for, so a
/// "billion laughs" document is refused at once) are errors, not a stack overflow or a long hang.
public enum YAMLComposer {
    public static let nestingLimit = 200
    public static let valueLimit = 100_000

    /// The one document in `text`, or nil when there is none (nothing, or only comments).
    public static func compose(_ text: String) throws(YAMLSyntaxError) -> YAMLNode? {
        let events = YAMLEvents(text)
        var composer = Composition(events: events)
        return try composer.document()
    }
}

/// The state of one composition: the anchors seen so far and how many values the document holds.
private struct Composition {
    let events: YAMLEvents
    var anchors: [String: (node: YAMLNode, values: Int)] = [:]
    var values = 0
    var depth = 0

    init(events: YAMLEvents) {
        self.events = events
    }

    mutating func document() throws(YAMLSyntaxError) -> YAMLNode? {
        _ = try events.next()  // the stream's start
        let first = try events.next()
        guard case .documentStart = first.kind else { return nil }
        let root = try node(from: try events.next()).node
        _ = try events.next()  // the document's end
        let after = try events.next()
        guard case .streamEnd = after.kind else {
            throw .invalid(
                problem: "but found another document",
                mark: after.mark,
                context: .init(text: "expected a single document in the stream", mark: YAMLMark(line: 1, column: 1))
            )
        }
        return root
    }

    /// The node `event` starts, with how many values it holds.
    private mutating func node(from event: YAMLEvent) throws(YAMLSyntaxError) -> (node: YAMLNode, values: Int) {
        let composed: (node: YAMLNode, values: Int)
        let anchor: String?
        switch event.kind {
        case .alias(let name):
            guard let named = anchors[name] else {
                throw .invalid(problem: "found undefined alias", mark: event.mark, context: nil)
            }
            try count(named.values, at: event.mark)
            return named
        case .scalar(let value, let scalarAnchor, let tag):
            try count(1, at: event.mark)
            composed = (.scalar(.init(value, tag: tag ?? YAMLTag.resolving(plain: value), mark: event.mark)), 1)
            anchor = scalarAnchor
        case .sequenceStart(let sequenceAnchor, let tag):
            composed = try sequence(from: event, tag: tag ?? .sequence)
            anchor = sequenceAnchor
        case .mappingStart(let mappingAnchor, let tag):
            composed = try mapping(from: event, tag: tag ?? .mapping)
            anchor = mappingAnchor
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
            // libyaml's parser gives a node's start wherever a node is due.
            throw .invalid(problem: "found no node where one was due", mark: event.mark, context: nil)
        }
        if let anchor { anchors[anchor] = composed }
        return composed
    }

    private mutating func sequence(from start: YAMLEvent, tag: YAMLTag) throws(YAMLSyntaxError)
        -> (node: YAMLNode, values: Int)
    {
        try enter(at: start.mark)
        try count(1, at: start.mark)
        var items: [YAMLNode] = []
        var values = 1
        while true {
            let event = try events.next()
            if case .sequenceEnd = event.kind { break }
            let item = try node(from: event)
            items.append(item.node)
            values += item.values
        }
        depth -= 1
        return (.sequence(.init(items, tag: tag, mark: start.mark)), values)
    }

    private mutating func mapping(from start: YAMLEvent, tag: YAMLTag) throws(YAMLSyntaxError)
        -> (node: YAMLNode, values: Int)
    {
        try enter(at: start.mark)
        try count(1, at: start.mark)
        var pairs: [YAMLNode.Pair] = []
        var values = 1
        while true {
            let event = try events.next()
            if case .mappingEnd = event.kind { break }
            let key = try node(from: event)
            let value = try node(from: try events.next())
            pairs.append((key.node, value.node))
            values += key.values + value.values
        }
        depth -= 1
        try Self.checkDuplicates(pairs)
        return (.mapping(.init(pairs, tag: tag, mark: start.mark)), values)
    }

    /// A scalar key written twice (same text, same tag): the least such key, at its first place.
    private static func checkDuplicates(_ pairs: [YAMLNode.Pair]) throws(YAMLSyntaxError) {
        var seen: [String: [(tag: YAMLTag, mark: YAMLMark)]] = [:]
        var duplicate: (key: String, first: YAMLMark)?
        for (key, _) in pairs {
            guard case .scalar(let scalar) = key else { continue }
            if let first = seen[scalar.string, default: []].first(where: { $0.tag == scalar.tag }) {
                if duplicate.map({ scalar.string < $0.key }) ?? true { duplicate = (scalar.string, first.mark) }
            } else {
                seen[scalar.string, default: []].append((scalar.tag, scalar.mark))
            }
        }
        if let duplicate { throw .duplicateKey(key: duplicate.key, first: duplicate.first) }
    }

    private mutating func enter(at mark: YAMLMark) throws(YAMLSyntaxError) {
        depth += 1
        guard depth <= YAMLComposer.nestingLimit else {
            throw .invalid(
                problem: "lists and mappings nested deeper than \(YAMLComposer.nestingLimit) levels",
                mark: mark,
                context: nil
            )
        }
    }

    private mutating func count(_ more: Int, at mark: YAMLMark) throws(YAMLSyntaxError) {
        values += more
        guard values <= YAMLComposer.valueLimit else {
            throw .invalid(
                problem: "more than \(YAMLComposer.valueLimit) values (an alias counts as all it stands for)",
                mark: mark,
                context: nil
            )
        }
    }
}
