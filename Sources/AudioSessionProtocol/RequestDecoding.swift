import AudioSessionPolicy
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Why a line is not a request: a code, a message naming the field, and the `id` when it could be read.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String
    public var field: String?
    public var id: RequestID?

    public enum Code: String, Codable, Sendable {
        /// Not JSON, or not a JSON object.
        case malformedMessage
        /// Longer than `Request.maximumLineBytes`.
        case messageTooLarge
        case unknownOperation
        case missingField
        case unknownField
        case badField
        /// A control request from another user, or a `call` declaration by one.
        case notPermitted
        /// The daemon could not write the state the request needs (its state directory is full or failing); the
        /// message names the file and the system's error. Nothing was changed; the request may be tried again.
        case stateUnavailable
    }

    public init(_ code: Code, _ message: String, field: String? = nil, id: RequestID? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.id = id
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension Request {
    /// Reads one line strictly: unknown operations, unknown or missing fields and values of the wrong type or
    /// outside their vocabulary are errors that name the field.
    public static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Request {
        guard line.count <= maximumLineBytes else {
            throw ProtocolError(.messageTooLarge, "a message is at most \(maximumLineBytes) bytes; this one is \(line.count)")
        }
        let object: [String: JSONValue]
        do {
            guard case .object(let parsed) = try JSONDecoder().decode(JSONValue.self, from: Data(line)) else {
                throw ProtocolError(.malformedMessage, "a message is one JSON object per line")
            }
            object = parsed
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError(.malformedMessage, "not valid JSON")
        }
        var reader = FieldReader(object: object)
        let id = try reader.id()
        do {
            return try reader.request(id: id)
        } catch var error {
            error.id = id
            throw error
        }
    }
}

/// Takes the fields of a parsed JSON object one by one, so that whatever is left over is an unknown field.
private struct FieldReader {
    var object: [String: JSONValue]

    mutating func id() throws(ProtocolError) -> RequestID? {
        guard let value = object.removeValue(forKey: "id") else { return nil }
        if let number = value.integer { return .number(number) }
        if case .string(let text) = value { return .text(text) }
        throw ProtocolError(.badField, "id: expected a whole number or a string", field: "id")
    }

    mutating func request(id: RequestID?) throws(ProtocolError) -> Request {
        guard let opName = object.removeValue(forKey: "op") else {
            throw ProtocolError(.missingField, "op: every request names its operation", field: "op")
        }
        guard case .string(let opText) = opName, let op = Operation(rawValue: opText) else {
            let known = Operation.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(.unknownOperation, "op: not an operation; expected one of: \(known)", field: "op")
        }
        let allowed = op.fields
        for key in object.keys.sorted() where !allowed.contains(where: { $0.name == key }) {
            let names = allowed.map(\.name)
            throw ProtocolError(
                .unknownField,
                "\(key): \(op.rawValue) takes " + (names.isEmpty ? "no fields" : names.joined(separator: ", ")),
                field: key
            )
        }
        for field in allowed where field.required && object[field.name] == nil {
            throw ProtocolError(.missingField, "\(field.name): \(op.rawValue) needs it", field: field.name)
        }
        return Request(id: id, try command(op))
    }

    /// The command of `op` from its fields, each read and checked in the order the protocol lists them; that
    /// a required field is there was checked before.
    private func command(_ op: Operation) throws(ProtocolError) -> Command {
        switch op {
        case .hello: return .hello(app: try string("app"), call: try bool("call"))
        case .setCategory:
            return .setCategory(
                try required("category", word("category", Category.self)),
                mode: try word("mode", Mode.self),
                options: try options()
            )
        case .activate: return .activate
        case .deactivate: return .deactivate(notifyOthers: try bool("notifyOthers"))
        case .overrideOutput: return .overrideOutput(port: try required("port", string("port")))
        case .getState: return .getState
        case .subscribe: return .subscribe
        case .startStream:
            return .startStream(
                try required("stream", integer("stream")),
                direction: try required("direction", word("direction", StreamDirection.self))
            )
        case .pauseStream: return .pauseStream(try required("stream", integer("stream")))
        case .removeStream: return .removeStream(try required("stream", integer("stream")))
        case .setSilentSwitch: return .setSilentSwitch(try required("position", word("position", SilentSwitch.self)))
        case .setScreenLock: return .setScreenLock(locked: try required("locked", bool("locked")))
        case .setVolume: return .setVolume(try required("volume", level("volume")))
        case .setAppState:
            return .setAppState(
                session: try required("session", sessionReference()),
                state: try required("state", word("state", AppState.self))
            )
        case .selectOutput: return .selectOutput(port: try required("port", string("port")))
        case .connectPort: return .connectPort(port: try required("port", string("port")))
        case .disconnectPort: return .disconnectPort(port: try required("port", string("port")))
        case .resumeStream: return .resumeStream(try required("stream", integer("stream")))
        case .status: return .status
        case .explain: return .explain(session: try required("session", sessionReference()))
        case .watch: return .watch
        case .decisions: return .decisions(count: try integer("count"))
        }
    }

    /// A field `Operation.fields` marks as required, whose presence was checked before its value was read.
    private func required<Value>(_ key: String, _ value: Value?) throws(ProtocolError) -> Value {
        guard let value else { throw ProtocolError(.missingField, "\(key): the request needs it", field: key) }
        return value
    }

    private func string(_ key: String) throws(ProtocolError) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw ProtocolError(.badField, "\(key): expected a string", field: key) }
        return text
    }

    private func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw ProtocolError(.badField, "\(key): expected true or false", field: key)
        }
        return flag
    }

    /// A number from 0 to 1.
    private func level(_ key: String) throws(ProtocolError) -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let number) = value, (0...1).contains(number) else {
            throw ProtocolError(.badField, "\(key): expected a number from 0 to 1", field: key)
        }
        return number
    }

    private func integer(_ key: String) throws(ProtocolError) -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.integer else {
            throw ProtocolError(.badField, "\(key): expected a whole number", field: key)
        }
        return number
    }

    private func word<Word: RawRepresentable & CaseIterable>(_ key: String, _: Word.Type) throws(ProtocolError) -> Word?
    where Word.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let word = Word(rawValue: text) else {
            let known = Word.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(.badField, "\(key): '\(text)' is not one of: \(known)", field: key)
        }
        return word
    }

    private func options() throws(ProtocolError) -> CategoryOptions? {
        guard let value = object["options"] else { return nil }
        guard case .array(let names) = value else {
            throw ProtocolError(.badField, "options: expected a list of option names", field: "options")
        }
        var options = CategoryOptions()
        for name in names {
            guard case .string(let text) = name, let option = CategoryOptions(name: text) else {
                let known = CategoryOptions.named.map(\.name).joined(separator: ", ")
                throw ProtocolError(.badField, "options: not an option name; expected any of: \(known)", field: "options")
            }
            options.insert(option)
        }
        return options
    }

    /// A session is named by its number (`7` or `"7"`) or its app name.
    private func sessionReference() throws(ProtocolError) -> String? {
        guard let value = object["session"] else { return nil }
        if case .string(let text) = value { return text }
        if let number = value.integer { return String(number) }
        throw ProtocolError(.badField, "session: expected a session number or an app name", field: "session")
    }
}
