import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Encodes messages as single JSON lines (sorted keys, so the same message is always the same bytes).
public enum LineCoding {
    public static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail; an empty object keeps the stream well-formed if it ever does.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Encodes a request for sending: the inverse of `Request.decode(line:)`.
    public static func encode(_ request: Request) -> String {
        var object: [String: String] = [:]
        func put(_ key: String, _ json: String?) { if let json { object[key] = json } }
        func quoted(_ text: String?) -> String? { text.map { encode($0) } }
        func flag(_ value: Bool?) -> String? { value.map { $0 ? "true" : "false" } }
        switch request.id {
        case .number(let number)?: put("id", String(number))
        case .text(let text)?: put("id", quoted(text))
        case nil: break
        }
        put("op", quoted(request.op.rawValue))
        switch request.command {
        case .hello(let app, let call):
            put("app", quoted(app))
            put("call", flag(call))
        case .setCategory(let category, let mode, let options):
            put("category", quoted(category.rawValue))
            put("mode", quoted(mode?.rawValue))
            put("options", options.map { encode($0.names) })
        case .deactivate(let notifyOthers): put("notifyOthers", flag(notifyOthers))
        case .overrideOutput(let port), .selectOutput(let port), .connectPort(let port), .disconnectPort(let port):
            put("port", quoted(port))
        case .startStream(let stream, let direction):
            put("stream", String(stream))
            put("direction", quoted(direction.rawValue))
        case .pauseStream(let stream), .removeStream(let stream), .resumeStream(let stream):
            put("stream", String(stream))
        case .setSilentSwitch(let position): put("position", quoted(position.rawValue))
        case .setScreenLock(let locked): put("locked", flag(locked))
        case .setVolume(let volume): put("volume", encode(volume))
        case .setAppState(let session, let state):
            put("session", quoted(session))
            put("state", quoted(state.rawValue))
        case .explain(let session): put("session", quoted(session))
        case .decisions(let count): put("count", count.map { String($0) })
        case .activate, .getState, .subscribe, .status, .watch: break
        }
        return "{" + object.keys.sorted().map { "\(encode($0)):\(object[$0]!)" }.joined(separator: ",") + "}"
    }

    /// Reads one line the daemon sent.
    public static func decodeServerMessage(_ line: some Collection<UInt8>) throws -> ServerMessage {
        try JSONDecoder().decode(ServerMessage.self, from: Data(line))
    }
}
