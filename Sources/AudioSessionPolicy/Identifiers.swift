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

/// A table key's hash from a number the caller gave out in order (a session's, a stream's, a timer's). The
/// standard `Hasher` (SipHash) guards a table against keys chosen to collide, at about 150 instructions a hash;
/// these keys are not chosen by anyone who could aim them, and the engine and the daemon look one up several
/// hundred times a call, so they are mixed with the table's seed by a few multiplications instead.
public enum NumberedKeyHash {
    @inlinable
    public static func of(_ value: UInt64, seed: Int) -> Int {
        var x = value ^ UInt64(truncatingIfNeeded: seed)
        x = (x ^ (x &>> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x &>> 27)) &* 0x94d0_49bb_1331_11eb
        return Int(truncatingIfNeeded: x ^ (x &>> 31))
    }
}

extension SessionID {
    public func _rawHashValue(seed: Int) -> Int { NumberedKeyHash.of(UInt64(bitPattern: Int64(rawValue)), seed: seed) }
}

extension StreamID {
    public func _rawHashValue(seed: Int) -> Int { NumberedKeyHash.of(UInt64(bitPattern: Int64(rawValue)), seed: seed) }
}

extension TimerID {
    public func _rawHashValue(seed: Int) -> Int { NumberedKeyHash.of(UInt64(bitPattern: Int64(rawValue)), seed: seed) }
}
