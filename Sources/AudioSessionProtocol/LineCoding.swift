import Foundation

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
        switch request.id {
        case .number(let number)?: put("id", String(number))
        case .text(let text)?: put("id", quoted(text))
        case nil: break
        }
        put("op", quoted(request.op.rawValue))
        put("app", quoted(request.app))
        put("category", quoted(request.category?.rawValue))
        put("mode", quoted(request.mode?.rawValue))
        put("options", request.options.map { encode($0.names) })
        put("call", request.call.map { $0 ? "true" : "false" })
        put("notifyOthers", request.notifyOthers.map { $0 ? "true" : "false" })
        put("port", quoted(request.port))
        put("stream", request.stream.map { String($0) })
        put("direction", quoted(request.direction?.rawValue))
        put("position", quoted(request.position?.rawValue))
        put("locked", request.locked.map { $0 ? "true" : "false" })
        put("volume", request.volume.map { encode($0) })
        put("session", quoted(request.session))
        put("state", quoted(request.state?.rawValue))
        put("count", request.count.map { String($0) })
        return "{" + object.keys.sorted().map { "\(encode($0)):\(object[$0]!)" }.joined(separator: ",") + "}"
    }

    /// Reads one line the daemon sent.
    public static func decodeServerMessage(_ line: some Collection<UInt8>) throws -> ServerMessage {
        try JSONDecoder().decode(ServerMessage.self, from: Data(line))
    }
}
