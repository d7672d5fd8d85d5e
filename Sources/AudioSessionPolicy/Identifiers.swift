/// Names a session. The caller chooses the value (the scenario runner numbers sessions in declaration order, the
/// daemon numbers its clients); the engine orders sessions by it wherever order matters.
public struct SessionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "session#\(rawValue)" }
}

/// Names a stream (a PulseAudio sink-input or source-output, an ALSA PCM). Chosen by the caller.
public struct StreamID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "stream#\(rawValue)" }
}

/// Names a timer the engine asked for. Chosen by the engine; the caller hands it back in `timerFired`.
public struct TimerID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "timer#\(rawValue)" }
}

/// The number of an event in the order the engine handled it, from 1. Reasons name the event that caused them,
/// and callers map it back to what they know (a scenario step, a log line).
public typealias EventNumber = Int
