import AudioSessionDaemonCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One journal entry's JSON, byte for byte what `JSONEncoder` with `.sortedKeys` writes of it (`JournalFileTests`
/// holds the two together, strings that need escaping included). Written out here because an entry is encoded on
/// the path from a server event to the orders that answer it, where the encoder's generic machinery took about
/// 70 µs for one entry (it runs cold there, once per event); this takes a few. Every other state file, and the
/// decoding, stay with `JSONEncoder` and `JSONDecoder`.
enum JournalEntryJSON {
    static func encode(_ entry: JournalStreamEntry) -> Data {
        // The keys in sorted order, as `.sortedKeys` has them; a nil optional is left out, as `encodeIfPresent`
        // leaves it.
        var json = JSONText()
        json.member("application", entry.application)
        json.member("index", entry.index)
        json.member("kind", entry.kind.rawValue)
        json.member("movedFrom", entry.movedFrom)
        json.member("movedTo", entry.movedTo)
        json.member("policyMuted", entry.policyMuted)
        json.member("policyVolume", entry.policyVolume)
        json.member("processID", entry.processID)
        json.member("restoreDevice", entry.restoreDevice)
        json.member("restoreKey", entry.restoreKey)
        json.member("role", entry.role)
        json.member("userMuted", entry.userMuted)
        json.member("userVolume", entry.userVolume)
        json.bytes.append(UInt8(ascii: "}"))
        return Data(json.bytes)
    }
}

/// A JSON object being written: its members' keys, strings escaped as `JSONEncoder` escapes them, unsigned
/// numbers, booleans.
private struct JSONText {
    var bytes: [UInt8] = [UInt8(ascii: "{")]

    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: StaticString, _ value: UInt32?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    mutating func member(_ name: StaticString, _ values: [UInt32]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            number(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    private mutating func key(_ name: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
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

    private mutating func escape(_ letter: UInt8) {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), letter])
    }

    private mutating func number(_ value: UInt32) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
