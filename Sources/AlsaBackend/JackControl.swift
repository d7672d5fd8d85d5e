/// A jack-detection control of a sound card (`Headphone Jack`, `Mic Jack`, `HDMI/DP,pcm=3 Jack`): whether
/// something is plugged into it.
public struct JackControl: Sendable, Hashable {
    /// The control's name, e.g. `Headphone Jack`.
    public var name: String
    /// Whether something is plugged in (for a control with several values: any of them).
    public var isPlugged: Bool
    /// Whether this is a phantom jack (`Speaker Phantom Jack`): a device that is always there, such as built-in
    /// speakers, reported so that its presence is known, not a real socket.
    public var isPhantom: Bool

    /// Creates a jack; `isPhantom` defaults to whether the name says `Phantom`.
    public init(name: String, isPlugged: Bool, isPhantom: Bool? = nil) {
        self.name = name
        self.isPlugged = isPlugged
        self.isPhantom = isPhantom ?? JackControl.isPhantomName(name)
    }

    /// Whether a control of interface `CARD`, type `BOOLEAN` and this name is a jack.
    static func isJackName(_ name: String) -> Bool { name.hasSuffix(" Jack") }

    static func isPhantomName(_ name: String) -> Bool { name.contains("Phantom") }
}

/// What changed between two snapshots of a card's jacks: the names newly plugged and newly unplugged, in the
/// order of the snapshot they are plugged in (`plugged`: the new one; `unplugged`: the old one).
public struct JackChanges: Sendable, Hashable {
    /// Jacks plugged in `new` but not in `old` (including jacks that appeared plugged).
    public var plugged: [String]
    /// Jacks plugged in `old` but not in `new` (including jacks that disappeared).
    public var unplugged: [String]

    /// Creates a change list.
    public init(plugged: [String] = [], unplugged: [String] = []) {
        self.plugged = plugged
        self.unplugged = unplugged
    }

    /// The changes from `old` to `new`; jacks are matched by name.
    public init(from old: [JackControl], to new: [JackControl]) {
        let wasPlugged = Set(old.filter(\.isPlugged).map(\.name))
        let isPlugged = Set(new.filter(\.isPlugged).map(\.name))
        plugged = Self.unique(new.filter { $0.isPlugged && !wasPlugged.contains($0.name) }.map(\.name))
        unplugged = Self.unique(old.filter { $0.isPlugged && !isPlugged.contains($0.name) }.map(\.name))
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { plugged.isEmpty && unplugged.isEmpty }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
