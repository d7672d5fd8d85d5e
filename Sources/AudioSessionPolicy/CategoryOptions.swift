/// Options of a category (C2), a set of flags. What a session reports includes the options its category, mode
/// and other options imply (C3, C5).
public struct CategoryOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let mixWithOthers = CategoryOptions(rawValue: 1 << 0)
    public static let duckOthers = CategoryOptions(rawValue: 1 << 1)
    public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 1 << 2)
    public static let allowBluetooth = CategoryOptions(rawValue: 1 << 3)
    public static let allowBluetoothA2DP = CategoryOptions(rawValue: 1 << 4)
    public static let defaultToSpeaker = CategoryOptions(rawValue: 1 << 5)
    public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 1 << 6)

    /// Every option with the name POLICY.md and the scenario files use, in the order they are listed there.
    public static let named: [(name: String, option: CategoryOptions)] = [
        ("mixWithOthers", .mixWithOthers),
        ("duckOthers", .duckOthers),
        ("interruptSpokenAudioAndMixWithOthers", .interruptSpokenAudioAndMixWithOthers),
        ("allowBluetooth", .allowBluetooth),
        ("allowBluetoothA2DP", .allowBluetoothA2DP),
        ("defaultToSpeaker", .defaultToSpeaker),
        ("overrideMutedMicrophoneInterruption", .overrideMutedMicrophoneInterruption),
    ]

    /// The option called `name`, or nil when there is none.
    public init?(name: String) {
        guard let entry = Self.named.first(where: { $0.name == name }) else { return nil }
        self = entry.option
    }

    /// The names of the options in this set, in their canonical order.
    public var names: [String] { Self.named.filter { contains($0.option) }.map(\.name) }

    /// C4: the first option in this set that `category` does not allow, if any.
    public func firstIllegalOption(for category: Category) -> String? {
        Self.named.first { contains($0.option) && !Self.isLegal($0.option, with: category) }?.name
    }

    private static func isLegal(_ option: CategoryOptions, with category: Category) -> Bool {
        switch option {
        case .mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers:
            [.playback, .playAndRecord, .ambient].contains(category)
        case .allowBluetooth: [.playAndRecord, .record].contains(category)
        case .allowBluetoothA2DP: category == .playAndRecord || category.isOutputOnly
        case .defaultToSpeaker: category == .playAndRecord
        case .overrideMutedMicrophoneInterruption: category.hasInput
        default: false
        }
    }

    /// The options a session reports for `category`, `mode` and these explicit options: C3's and C5's
    /// implications added; an explicit `allowBluetoothA2DP` on an output-only category dropped, since there it
    /// changes nothing (C6).
    public func reported(category: Category, mode: Mode) -> CategoryOptions {
        var options = self.union(mode.impliedOptions)
        if category.isOutputOnly { options.remove(.allowBluetoothA2DP) }
        if category == .ambient || !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) {
            options.insert(.mixWithOthers)
        }
        return options
    }
}
