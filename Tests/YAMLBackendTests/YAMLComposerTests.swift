import Testing
import YAMLBackend

@Suite("YAMLComposer: libyaml's events composed into one document")
struct YAMLComposerTests {
    @Test func aDocumentComposesWithItsMarksInOrder() throws {
        let root = try #require(try YAMLComposer.compose("name: café\nlist:\n  - 1\n  - 'two'\nflow: {a: yes}\n"))
        guard case .mapping(let mapping) = root else {
            Issue.record("not a mapping: \(root)")
            return
        }
        #expect(mapping.map { key, _ in Self.text(key) } == ["name", "list", "flow"])
        #expect(mapping[0].value.mark == YAMLMark(line: 1, column: 7))
        #expect(mapping[1].key.mark == YAMLMark(line: 2, column: 1))
        guard case .sequence(let list) = mapping[1].value else {
            Issue.record("not a list: \(mapping[1].value)")
            return
        }
        #expect(list.map(\.tag) == [.int, .string])
        #expect(list[1].mark == YAMLMark(line: 4, column: 5))
        guard case .mapping(let flow) = mapping[2].value else {
            Issue.record("not a mapping: \(mapping[2].value)")
            return
        }
        #expect(flow[0].value.tag == .bool)
        // Columns count characters: `é` is two bytes, one column.
        let after = try #require(try YAMLComposer.compose("é: x"))
        guard case .mapping(let accented) = after else { return }
        #expect(accented[0].value.mark == YAMLMark(line: 1, column: 4))
    }

    @Test func nothingOrOnlyCommentsIsNoDocument() throws {
        #expect(try YAMLComposer.compose("") == nil)
        #expect(try YAMLComposer.compose("# only a comment\n") == nil)
    }

    @Test func quotedAndExplicitlyTaggedScalarsKeepTheirTags() throws {
        let root = try #require(try YAMLComposer.compose("['5', \"true\", !!str 7, !!int '8', 9, ~]"))
        guard case .sequence(let items) = root else { return }
        #expect(items.map(\.tag) == [.string, .string, .string, .int, .int, .null])
    }

    @Test func anAliasIsTheNodeItNames() throws {
        let root = try #require(try YAMLComposer.compose("a: &x [1, 2]\nb: *x\n"))
        guard case .mapping(let mapping) = root, case .sequence(let aliased) = mapping[1].value else {
            Issue.record("not composed: \(String(describing: root))")
            return
        }
        #expect(aliased.map { Self.text($0) } == ["1", "2"])
    }

    @Test func syntaxErrorsCarryLibyamlsWordsAndPlaces() {
        #expect(
            throws: YAMLSyntaxError.invalid(
                problem: "did not find expected key",
                mark: YAMLMark(line: 2, column: 1),
                context: .init(text: "while parsing a block mapping", mark: YAMLMark(line: 1, column: 1))
            )
        ) { try YAMLComposer.compose("key: value\n- item\n") }
        #expect(
            throws: YAMLSyntaxError.invalid(
                problem: "mapping values are not allowed in this context",
                mark: YAMLMark(line: 2, column: 3),
                context: nil
            )
        ) { try YAMLComposer.compose("a: 1\n b: 2\n") }
        #expect(
            throws: YAMLSyntaxError.invalid(
                problem: "found undefined alias",
                mark: YAMLMark(line: 1, column: 4),
                context: nil
            )
        ) {
            try YAMLComposer.compose("a: *nowhere")
        }
        #expect(
            throws: YAMLSyntaxError.invalid(
                problem: "but found another document",
                mark: YAMLMark(line: 2, column: 1),
                context: .init(text: "expected a single document in the stream", mark: YAMLMark(line: 1, column: 1))
            )
        ) { try YAMLComposer.compose("a: 1\n---\nb: 2\n") }
        #expect(throws: YAMLSyntaxError.unreadable(problem: "control characters are not allowed", byteOffset: 3)) {
            try YAMLComposer.compose("a: \u{7}")
        }
    }

    @Test func aKeyWrittenTwiceIsNamedAtItsFirstPlace() {
        #expect(throws: YAMLSyntaxError.duplicateKey(key: "b", first: YAMLMark(line: 2, column: 1))) {
            try YAMLComposer.compose("z: 0\nb: 1\nz: 2\nb: 3\n")
        }
        // One text, two tags: not the same key (the strict reader decides about these).
        #expect(throws: Never.self) { try YAMLComposer.compose("1: a\n'1': b\n") }
    }

    @Test func aHostileDocumentIsRefusedNotFollowed() {
        let deep = String(repeating: "[", count: YAMLComposer.nestingLimit + 1)
        #expect(throws: YAMLSyntaxError.self) { try YAMLComposer.compose(deep) }
        let fine =
            String(repeating: "[", count: YAMLComposer.nestingLimit)
            + String(repeating: "]", count: YAMLComposer.nestingLimit)
        #expect(throws: Never.self) { try YAMLComposer.compose(fine) }
        // Each level names the one before ten times: 10^9 values if followed.
        var laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let names = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            laughs += "a\(level): &a\(level) [\(names)]\n"
        }
        do {
            _ = try YAMLComposer.compose(laughs)
            Issue.record("a billion values were composed")
        } catch {
            guard case .invalid(let problem, let mark, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problem.contains("more than \(YAMLComposer.valueLimit) values"))
            #expect(mark.line == 5)  // a4 stands for 111,111 values
        }
    }

    static func text(_ node: YAMLNode) -> String? {
        guard case .scalar(let scalar) = node else { return nil }
        return scalar.string
    }
}

@Suite("YAMLTag: plain scalars resolved as YAML 1.1 resolves them")
struct YAMLTagTests {
    @Test(arguments: [
        // bool
        ("yes", YAMLTag.bool), ("No", .bool), ("TRUE", .bool), ("off", .bool), ("oN", .string), ("y", .string),
        // int: binary, octal, decimal, hexadecimal, sexagesimal
        ("0b1010_1", .int), ("-0b2", .string), ("017", .int), ("0o17", .int), ("0o", .string), ("08", .float),
        ("0", .int), ("+12_000", .int), ("-7", .int), ("0x1F_a", .int), ("0xg", .string), ("1:20", .int),
        ("1:60", .string), ("01:20", .string), ("1:2:3", .int),
        // float
        ("1.5", .float), ("-1.", .float), ("1e5", .float), ("1.5E-3", .float), ("1e", .string), (".5", .float),
        (".5e+3", .float), (".5e3", .string), ("-.5", .string), ("1:20.5", .float), ("01:20.5", .float),
        (".inf", .float), ("-.Inf", .float), (".NaN", .float), ("-.nan", .string), ("1_0.0_1", .float),
        // null
        ("~", .null), ("null", .null), ("NULL", .null), ("", .null), ("nil", .string),
        // anything else
        ("playback", .string), ("<<", .string), ("2026-11-27", .string), ("1.2.3", .string), ("+", .string),
    ])
    func aPlainScalarResolves(text: String, tag: YAMLTag) {
        #expect(YAMLTag.resolving(plain: text) == tag, "\(text)")
    }
}
