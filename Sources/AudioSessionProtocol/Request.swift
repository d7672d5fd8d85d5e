import AudioSessionPolicy
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One line from a client: `{"id": 1, "op": "setCategory", "category": "playback", "options": ["duckOthers"]}`.
/// What it asks for is a `Command`, one case per operation with exactly the fields that operation takes, so a
/// request with a field its operation does not take, or without one it needs, cannot be made.
public struct Request: Sendable, Equatable {
    /// Echoed in the reply, so a client can match replies to requests; any JSON number or string.
    public var id: RequestID?
    public var command: Command

    public init(id: RequestID? = nil, _ command: Command) {
        self.id = id
        self.command = command
    }

    /// The operation's name on the wire (`op`).
    public var op: Operation { command.operation }

    /// The longest line the daemon reads; a longer one is refused without being parsed.
    public static let maximumLineBytes = 64 * 1024
}

/// What a request asks for. The first group acts on the caller's own session; the second is control, for the
/// daemon's own user only (`Operation.isControl`). A field that is optional on the wire is optional here, and
/// absent stays absent when the request is encoded again.
public enum Command: Sendable, Equatable {
    // The caller's own session.
    /// Names the caller's session (`app`, else its process's name); `call: true` declares a telephony or VoIP app.
    case hello(app: String? = nil, call: Bool? = nil)
    case setCategory(Category, mode: Mode? = nil, options: CategoryOptions? = nil)
    case activate
    case deactivate(notifyOthers: Bool? = nil)
    /// `speaker` or `none`, as the daemon reads it (a wrong word is refused naming the two).
    case overrideOutput(port: String)
    case getState
    case subscribe
    /// A stream the client plays or records itself, by its own number.
    case startStream(Int, direction: StreamDirection)
    case pauseStream(Int)
    case removeStream(Int)
    // Control.
    case setSilentSwitch(SilentSwitch)
    case setScreenLock(locked: Bool)
    /// The system volume, linear from 0 to 1.
    case setVolume(Double)
    /// A session, by its number or its app name.
    case setAppState(session: String, state: AppState)
    /// Port names as sent: the daemon refuses a name that is not a port listing the ones the request takes.
    case selectOutput(port: String)
    case connectPort(port: String)
    case disconnectPort(port: String)
    /// A stream that a port going away stopped (R4, O3) plays again on the port it is on now.
    case resumeStream(Int)
    case status
    /// A session, by its number or its app name.
    case explain(session: String)
    case watch
    /// How many of the last decisions.
    case decisions(count: Int? = nil)

    /// The operation's name on the wire.
    public var operation: Operation {
        switch self {
        case .hello: .hello
        case .setCategory: .setCategory
        case .activate: .activate
        case .deactivate: .deactivate
        case .overrideOutput: .overrideOutput
        case .getState: .getState
        case .subscribe: .subscribe
        case .startStream: .startStream
        case .pauseStream: .pauseStream
        case .removeStream: .removeStream
        case .setSilentSwitch: .setSilentSwitch
        case .setScreenLock: .setScreenLock
        case .setVolume: .setVolume
        case .setAppState: .setAppState
        case .selectOutput: .selectOutput
        case .connectPort: .connectPort
        case .disconnectPort: .disconnectPort
        case .resumeStream: .resumeStream
        case .status: .status
        case .explain: .explain
        case .watch: .watch
        case .decisions: .decisions
        }
    }
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
