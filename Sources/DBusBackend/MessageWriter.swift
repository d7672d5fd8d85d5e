internal import CSystemd

/// Appends `DBusValue`s to an sd-bus message with `sd_bus_message_append_basic` and `open_container`.
/// sd-bus checks each value against the signature being built, so a value that does not fit its array's element
/// signature is an error here, not a malformed message on the wire.
enum MessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer, operation: String) throws(DBusError) {
        for value in values { try append(value, to: message, operation: operation) }
    }

    static func append(_ value: DBusValue, to message: OpaquePointer, operation: String) throws(DBusError) {
        switch value {
        case .byte(var number): try basic(message, "y", &number, operation)
        case .bool(let flag):
            var number: Int32 = flag ? 1 : 0
            try basic(message, "b", &number, operation)
        case .int16(var number): try basic(message, "n", &number, operation)
        case .uint16(var number): try basic(message, "q", &number, operation)
        case .int32(var number): try basic(message, "i", &number, operation)
        case .uint32(var number): try basic(message, "u", &number, operation)
        case .int64(var number): try basic(message, "x", &number, operation)
        case .uint64(var number): try basic(message, "t", &number, operation)
        case .double(var number): try basic(message, "d", &number, operation)
        case .string(let text): try appendText(message, "s", text, operation)
        case .objectPath(let text): try appendText(message, "o", text, operation)
        case .signature(let text): try appendText(message, "g", text, operation)
        case .variant(let inner):
            try container(message, "v", inner.signature, operation) { () throws(DBusError) in
                try append(inner, to: message, operation: operation)
            }
        case .array(let element, let elements):
            try container(message, "a", element, operation) { () throws(DBusError) in
                try append(elements, to: message, operation: operation)
            }
        case .dictionary(let key, let valueSignature, let entries):
            try container(message, "a", "{" + key + valueSignature + "}", operation) { () throws(DBusError) in
                for entry in entries {
                    try container(message, "e", key + valueSignature, operation) { () throws(DBusError) in
                        try append(entry.key, to: message, operation: operation)
                        try append(entry.value, to: message, operation: operation)
                    }
                }
            }
        case .structure(let fields):
            try container(message, "r", fields.map(\.signature).joined(), operation) { () throws(DBusError) in
                try append(fields, to: message, operation: operation)
            }
        }
    }

    private static func basic<Value>(
        _ message: OpaquePointer,
        _ type: Unicode.Scalar,
        _ value: inout Value,
        _ operation: String
    ) throws(DBusError) {
        let result = withUnsafePointer(to: &value) { sd_bus_message_append_basic(message, CChar(type.value), $0) }
        try check(result, "append '\(type)'", operation)
    }

    private static func appendText(
        _ message: OpaquePointer,
        _ type: Unicode.Scalar,
        _ text: String,
        _ operation: String
    ) throws(DBusError) {
        let result = text.withCString { sd_bus_message_append_basic(message, CChar(type.value), $0) }
        try check(result, "append '\(type)' \"\(text)\"", operation)
    }

    private static func container(
        _ message: OpaquePointer,
        _ type: Unicode.Scalar,
        _ contents: String,
        _ operation: String,
        _ body: () throws(DBusError) -> Void
    ) throws(DBusError) {
        let opened = contents.withCString { sd_bus_message_open_container(message, CChar(type.value), $0) }
        try check(opened, "open '\(type)' container of '\(contents)'", operation)
        try body()
        try check(sd_bus_message_close_container(message), "close '\(type)' container", operation)
    }

    private static func check(_ result: Int32, _ step: String, _ operation: String) throws(DBusError) {
        if result < 0 { throw .system(operation: "\(operation): \(step)", errno: result) }
    }
}
