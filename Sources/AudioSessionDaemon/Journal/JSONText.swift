import FoundationEssentials

/// A JSON object being written by hand, byte for byte as `JSONEncoder` with `.sortedKeys` writes it: members are
/// added in sorted key order by the caller, a nil optional is left out (as `encodeIfPresent` leaves it), strings
/// are escaped as the encoder escapes them. For the two files written once per event (the stream journal, on the
/// path to the orders, and the event log after them), where the encoder's generic machinery was the largest
/// part of the work (docs/DAEMON.md, "The hot path"); `JournalFileTests` and `JournalRecordJSONTests` hold each
/// writer to the encoder's output.
struct JSONText {
    private(set) var bytes: [UInt8] = []
    /// Whether the object or list being written has a member or item yet, one bit per open container (the
    /// innermost the lowest): a record nests three or four deep. Bits, not an array of flags: a key's separator
    /// was about a quarter of its cost with the array's checks.
    private var started: UInt64 = 0
    private var depth = 0

    init() {}

    /// Writes one object: `members` adds its members, in sorted order.
    static func object(_ members: (inout JSONText) -> Void) -> [UInt8] {
        var text = JSONText()
        // An event's record is a few hundred bytes: room for it at once, not doubled up to it from one byte.
        text.bytes.reserveCapacity(512)
        text.open(UInt8(ascii: "{"))
        members(&text)
        text.close(UInt8(ascii: "}"))
        return text.bytes
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: StaticString, _ value: (some RawRepresentable<String>)?) {
        member(name, value?.rawValue)
    }

    mutating func member(_ name: StaticString, _ value: (some FixedWidthInteger)?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    mutating func member(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func member(_ name: StaticString, _ values: [String]?) {
        list(name, values) { text, value in text.string(value) }
    }

    mutating func member(_ name: StaticString, _ values: [some FixedWidthInteger]?) {
        list(name, values) { text, value in text.integer(value) }
    }

    /// A map of strings, its keys sorted as `.sortedKeys` sorts them.
    mutating func member(_ name: StaticString, _ map: [String: String]?) {
        guard let map else { return }
        key(name)
        open(UInt8(ascii: "{"))
        for (key, value) in map.sorted(by: { Self.sortsBefore($0.key, $1.key) }) {
            separate()
            string(key)
            bytes.append(UInt8(ascii: ":"))
            string(value)
        }
        close(UInt8(ascii: "}"))
    }

    /// A member whose value is an object; `members` adds its members.
    mutating func object(_ name: StaticString, _ members: (inout JSONText) -> Void) {
        key(name)
        open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"))
    }

    /// A member whose value is a list of objects; `members` adds each one's members.
    mutating func objects<Element>(
        _ name: StaticString,
        _ elements: [Element]?,
        _ members: (inout JSONText, Element) -> Void
    ) {
        list(name, elements) { text, element in
            text.open(UInt8(ascii: "{"))
            members(&text, element)
            text.close(UInt8(ascii: "}"))
        }
    }

    /// The order of `.sortedKeys`: by Unicode code point, which for UTF-8 is by bytes.
    static func sortsBefore(_ left: String, _ right: String) -> Bool {
        // Compared as the bytes they are stored in: a stream's properties share long prefixes ("application.",
        // "media."), and the generic view's iterator costs several times a byte's comparison.
        var left = left
        var right = right
        return left.withUTF8 { left in right.withUTF8 { right in left.lexicographicallyPrecedes(right) } }
    }

    private mutating func list<Element>(
        _ name: StaticString,
        _ elements: [Element]?,
        _ item: (inout JSONText, Element) -> Void
    ) {
        guard let elements else { return }
        key(name)
        open(UInt8(ascii: "["))
        for element in elements {
            separate()
            item(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    private mutating func open(_ bracket: UInt8) {
        precondition(depth < UInt64.bitWidth, "JSONText nests at most \(UInt64.bitWidth) containers")
        bytes.append(bracket)
        started <<= 1
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        started >>= 1
        depth -= 1
    }

    /// The comma before every member or item but a container's first.
    private mutating func separate() {
        if started & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
        started |= 1
    }

    private mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (names, roles, keys) need no escape: looked over and copied whole, as the bytes they are
        // stored in (a native string's UTF-8), not through the generic view's iterator.
        var value = value
        let copied = value.withUTF8 { utf8 in
            if utf8.contains(where: Self.needsEscape) { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape(byte)
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0..<0x20:
                // \u00XX, lowercase hex: what JSONEncoder writes.
                let hex = Array("0123456789abcdef".utf8)
                escape(UInt8(ascii: "u"))
                let zero = UInt8(ascii: "0")
                bytes.append(contentsOf: [zero, zero, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    private mutating func escape(_ letter: UInt8) {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), letter])
    }

    /// An integer's decimal digits, written straight into the bytes: `String(value)` made a string (an allocation)
    /// for each, and an entry's volumes are two of them a channel, a hundred entries on the path of a call that
    /// silences a hundred streams.
    private mutating func integer(_ value: some FixedWidthInteger) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude of the most negative value of any width up to 64 bits fits.
        var rest = UInt64(truncatingIfNeeded: value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            bytes.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A finite number as the encoder writes it: Swift's shortest form that reads back the same, without a
    /// trailing `.0`.
    private mutating func number(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }
}
