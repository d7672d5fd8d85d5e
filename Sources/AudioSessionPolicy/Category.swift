/// What an app's audio is for (POLICY section 1). The category decides whether a session has output and input,
/// whether the Ring/Silent switch and the screen lock silence it, and whether it mixes with others.
public enum Category: String, CaseIterable, Hashable, Sendable, Codable {
    case ambient
    case soloAmbient
    case playback
    case record
    case playAndRecord
    case audioProcessing

    /// Whether streams of this category are heard at all (O1).
    public var hasOutput: Bool {
        switch self {
        case .ambient, .soloAmbient, .playback, .playAndRecord: true
        case .record, .audioProcessing: false
        }
    }

    /// Whether this category may capture (input verdicts, R6).
    public var hasInput: Bool {
        switch self {
        case .record, .playAndRecord: true
        case .ambient, .soloAmbient, .playback, .audioProcessing: false
        }
    }

    /// Silenced by the Ring/Silent switch (O4) and by the screen lock or the background (O5): the same two
    /// categories in both columns of the table.
    public var isSilencedBySwitchAndLock: Bool {
        switch self {
        case .ambient, .soloAmbient: true
        case .playback, .record, .playAndRecord, .audioProcessing: false
        }
    }

    /// Output-only categories always allow Bluetooth A2DP (C4, R1).
    var isOutputOnly: Bool { hasOutput && !hasInput }
}
