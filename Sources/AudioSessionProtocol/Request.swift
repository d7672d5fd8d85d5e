import AudioSessionPolicy
import Foundation

/// One line from a client: `{"id": 1, "op": "setCategory", "category": "playback", "options": ["duckOthers"]}`.
public struct Request: Sendable, Equatable {
    /// Echoed in the reply, so a client can match replies to requests; any JSON number or string.
    public var id: RequestID?
    public var op: Operation
    public var app: String?
    public var category: Category?
    public var mode: Mode?
    public var options: CategoryOptions?
    public var call: Bool?
    public var notifyOthers: Bool?
    public var port: String?
    public var stream: Int?
    public var direction: StreamDirection?
    public var position: SilentSwitch?
    public var locked: Bool?
    /// The system volume, linear from 0 to 1 (`setVolume`).
    public var volume: Double?
    /// A session, by its number or its app name.
    public var session: String?
    public var state: AppState?
    /// How many of the last decisions (`decisions`).
    public var count: Int?

    public init(id: RequestID? = nil, op: Operation) {
        self.id = id
        self.op = op
    }

    /// The longest line the daemon reads; a longer one is refused without being parsed.
    public static let maximumLineBytes = 64 * 1024
}

/// A request's `id`, as the client wrote it.
public enum RequestID: Sendable, Hashable, Codable {
    case number(Int)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }
}
