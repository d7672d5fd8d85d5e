internal import CSystemd

/// Reads every argument of an sd-bus message as `DBusValue`s (`sd_bus_message_peek_type`, `read_basic`,
/// `enter_container`). A type this layer does not carry (a unix descriptor) or a read that fails is a
/// `DBusError.malformedMessage`, never a trap.
enum MessageReader {
    /// All arguments from the first (rewound first, so a message is read whole whoever read it before).
    static func arguments(of message: OpaquePointer, operation: String) throws(DBusError) -> [DBusValue] {
        try check(sd_bus_message_rewind(message, 1), "rewind", operation)
        return try readUntilEnd(message, operation)
    }

    /// The message's full signature (`""` when it has no arguments).
    static func signature(of message: OpaquePointer) -> String {
        sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? ""
    }

    private static func readUntilEnd(_ message: OpaquePointer, _ operation: String) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>? = nil
            let peeked = sd_bus_message_peek_type(message, &type, &contents)
            try check(peeked, "peek", operation)
            if peeked == 0 { return values }
            values.append(try readOne(message, type, contents.map { String(cString: $0) } ?? "", operation))
        }
    }

    private static func readOne(
        _ message: OpaquePointer,
        _ type: CChar,
        _ contents: String,
        _ operation: String
    ) throws(DBusError) -> DBusValue {
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(message, type, UInt8(0), operation))
        case UInt8(ascii: "b"): return .bool(try basic(message, type, Int32(0), operation) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(message, type, Int16(0), operation))
        case UInt8(ascii: "q"): return .uint16(try basic(message, type, UInt16(0), operation))
        case UInt8(ascii: "i"): return .int32(try basic(message, type, Int32(0), operation))
        case UInt8(ascii: "u"): return .uint32(try basic(message, type, UInt32(0), operation))
        case UInt8(ascii: "x"): return .int64(try basic(message, type, Int64(0), operation))
        case UInt8(ascii: "t"): return .uint64(try basic(message, type, UInt64(0), operation))
        case UInt8(ascii: "d"): return .double(try basic(message, type, Double(0), operation))
        case UInt8(ascii: "s"): return .string(try text(message, type, operation))
        case UInt8(ascii: "o"): return .objectPath(try text(message, type, operation))
        case UInt8(ascii: "g"): return .signature(try text(message, type, operation))
        case UInt8(ascii: "v"):
            let inner = try inside(message, type, contents, operation)
            guard inner.count == 1 else {
                throw .malformedMessage(operation: operation, reason: "a variant holds \(inner.count) values")
            }
            return .variant(inner[0])
        case UInt8(ascii: "r"):
            return .structure(try inside(message, type, contents, operation))
        case UInt8(ascii: "a") where contents.hasPrefix("{"):
            let inner = String(contents.dropFirst().dropLast())
            guard let key = inner.first else {
                throw .malformedMessage(operation: operation, reason: "an empty dictionary entry type")
            }
            let entries = try inside(message, type, contents, operation)
            var pairs: [DBusDictionaryEntry] = []
            for entry in entries {
                guard let fields = entry.fields, fields.count == 2 else {
                    throw .malformedMessage(operation: operation, reason: "a dictionary entry without key and value")
                }
                pairs.append(DBusDictionaryEntry(key: fields[0], value: fields[1]))
            }
            return .dictionary(keySignature: String(key), valueSignature: String(inner.dropFirst()), pairs)
        case UInt8(ascii: "a"):
            return .array(elementSignature: contents, try inside(message, type, contents, operation))
        case UInt8(ascii: "e"):
            // A dictionary entry, read as a two-field struct by its dictionary.
            return .structure(try inside(message, type, contents, operation))
        default:
            throw .malformedMessage(
                operation: operation,
                reason: "type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))' is not supported"
            )
        }
    }

    /// The values inside a container; for a dictionary, its entries as two-field structs.
    private static func inside(
        _ message: OpaquePointer,
        _ type: CChar,
        _ contents: String,
        _ operation: String
    ) throws(DBusError) -> [DBusValue] {
        let entered = contents.withCString { sd_bus_message_enter_container(message, type, $0) }
        try check(entered, "enter container '\(contents)'", operation)
        let values = try readUntilEnd(message, operation)
        try check(sd_bus_message_exit_container(message), "exit container '\(contents)'", operation)
        return values
    }

    private static func basic<Value>(
        _ message: OpaquePointer,
        _ type: CChar,
        _ initial: Value,
        _ operation: String
    ) throws(DBusError) -> Value {
        var value = initial
        let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
        try check(result, "read basic", operation)
        return value
    }

    private static func text(_ message: OpaquePointer, _ type: CChar, _ operation: String) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        let result = sd_bus_message_read_basic(message, type, &pointer)
        try check(result, "read string", operation)
        guard let pointer else { throw .malformedMessage(operation: operation, reason: "a string without text") }
        return String(cString: pointer)
    }

    private static func check(_ result: Int32, _ step: String, _ operation: String) throws(DBusError) {
        if result < 0 {
            throw .malformedMessage(operation: operation, reason: "\(step): \(DBusError.errnoText(result))")
        }
    }
}
