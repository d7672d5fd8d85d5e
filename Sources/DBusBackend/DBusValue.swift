/// One D-Bus value, as a message carries it: the basic types, variants, arrays, dictionaries and structs.
///
/// Arrays and dictionaries carry their element signature so that an empty one can still be written.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A value together with its own type (`v`).
    case variant(DBusValue)
    /// `a<element>`: the elements, each of the type `elementSignature` names.
    case array(elementSignature: String, [DBusValue])
    /// `a{<key><value>}`: entries in the order the message has them.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    /// `(...)`: the fields in order.
    case structure([DBusValue])

    /// The value's D-Bus type signature, e.g. `s`, `a{sv}`, `(so)`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictionaryEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// An `a{sv}` dictionary, the shape of property maps and hints (keys sorted, so equal maps write alike).
    public static func properties(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s",
            valueSignature: "v",
            entries.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
            }
        )
    }

    /// An `as` array.
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map(DBusValue.string))
    }

    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string, an object path or a signature; nil for any other type.
    public var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// A boolean; nil for any other type.
    public var bool: Bool? {
        if case .bool(let flag) = unwrapped { return flag }
        return nil
    }

    /// Any integer type that fits an `Int64`; nil for other types and for a `uint64` beyond it.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let number): Int64(number)
        case .int16(let number): Int64(number)
        case .uint16(let number): Int64(number)
        case .int32(let number): Int64(number)
        case .uint32(let number): Int64(number)
        case .int64(let number): number
        case .uint64(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// A double (or an integer, as a double); nil for other types.
    public var double: Double? {
        if case .double(let number) = unwrapped { return number }
        return integer.map(Double.init)
    }

    /// The elements of an array; nil for other types.
    public var elements: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// The strings of an `as` (or `ao`) array; nil for other types or other elements.
    public var stringArray: [String]? {
        guard let elements else { return nil }
        var strings: [String] = []
        for element in elements {
            guard let text = element.string else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// A dictionary with string keys (e.g. `a{sv}`), values as they are (variants stay variants); nil for other
    /// types. A key that occurs twice keeps its last value.
    public var stringKeyed: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var map: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key else { return nil }
            map[key] = entry.value
        }
        return map
    }

    /// The fields of a struct; nil for other types.
    public var fields: [DBusValue]? {
        if case .structure(let fields) = unwrapped { return fields }
        return nil
    }
}

extension DBusValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .byte(let value): "byte \(value)"
        case .bool(let value): "\(value)"
        case .int16(let value): "int16 \(value)"
        case .uint16(let value): "uint16 \(value)"
        case .int32(let value): "int32 \(value)"
        case .uint32(let value): "uint32 \(value)"
        case .int64(let value): "int64 \(value)"
        case .uint64(let value): "uint64 \(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .objectPath(let value): "objpath \(value)"
        case .signature(let value): "signature \(value)"
        case .variant(let value): "<\(value)>"
        case .array(_, let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        }
    }
}
