/// What a request asks for. The first group acts on the caller's own session; the second is control, for the
/// daemon's own user only.
public enum Operation: String, Codable, CaseIterable, Sendable {
    // The caller's own session.
    case hello
    case setCategory
    case activate
    case deactivate
    case overrideOutput
    case getState
    case subscribe
    case startStream
    case pauseStream
    case removeStream
    // Control.
    case setSilentSwitch
    case setScreenLock
    case setVolume
    case setAppState
    case selectOutput
    case connectPort
    case disconnectPort
    /// A stream that a port going away stopped (R4, O3) plays again on the port it is on now, as if its app
    /// had restarted it: for apps that cannot pause.
    case resumeStream
    case status
    case explain
    case watch
    /// The daemon's last decisions, each with its reason, as its log has them.
    case decisions

    /// Control requests need the daemon's own uid (or root).
    public var isControl: Bool {
        switch self {
        case .hello, .setCategory, .activate, .deactivate, .overrideOutput, .getState, .subscribe, .startStream,
            .pauseStream, .removeStream:
            false
        case .setSilentSwitch, .setScreenLock, .setVolume, .setAppState, .selectOutput, .connectPort, .disconnectPort,
            .resumeStream, .status, .explain, .watch, .decisions:
            true
        }
    }

    /// The fields this operation takes besides `id` and `op`: (name, required).
    public var fields: [(name: String, required: Bool)] {
        switch self {
        case .hello: [("app", false), ("call", false)]
        case .setCategory: [("category", true), ("mode", false), ("options", false)]
        case .deactivate: [("notifyOthers", false)]
        case .overrideOutput: [("port", true)]
        case .startStream: [("stream", true), ("direction", true)]
        case .pauseStream, .removeStream, .resumeStream: [("stream", true)]
        case .setSilentSwitch: [("position", true)]
        case .setScreenLock: [("locked", true)]
        case .setVolume: [("volume", true)]
        case .setAppState: [("session", true), ("state", true)]
        case .selectOutput, .connectPort, .disconnectPort: [("port", true)]
        case .explain: [("session", true)]
        case .decisions: [("count", false)]
        case .activate, .getState, .subscribe, .status, .watch: []
        }
    }
}
