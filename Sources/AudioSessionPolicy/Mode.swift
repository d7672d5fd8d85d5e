/// A refinement of a category (C5). Modes are not sticky: a `setCategory` without one means `default`.
public enum Mode: String, CaseIterable, Hashable, Sendable, Codable {
    case `default`
    case voiceChat
    case videoChat
    case gameChat
    case measurement
    case moviePlayback
    case spokenAudio
    case voicePrompt

    /// C5: the categories a mode may be used with.
    public func isLegal(with category: Category) -> Bool {
        switch self {
        case .default: true
        case .voiceChat, .videoChat, .gameChat: category == .playAndRecord
        case .measurement: [.playback, .record, .playAndRecord].contains(category)
        case .moviePlayback, .spokenAudio: category == .playback
        case .voicePrompt: [.playback, .playAndRecord].contains(category)
        }
    }

    /// C5: options a mode brings with it.
    var impliedOptions: CategoryOptions {
        switch self {
        case .voiceChat: [.allowBluetooth]
        case .videoChat: [.allowBluetooth, .defaultToSpeaker]
        default: []
        }
    }
}
