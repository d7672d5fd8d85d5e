import AudioSessionPolicy

/// What the daemon uses when it runs with no sound server (`audiosessiond --no-sound-server`): the ALSA mixer
/// control it enforces the silent switch and the system volume on, and the card whose jack controls become
/// ports. With a sound server, the server's own devices and streams are used instead and this is ignored.
public struct AlsaSettings: Sendable, Hashable {
    /// The mixer control; nil: no mixer is touched.
    public var mixer: MixerControlName?
    /// The card whose jacks are watched; nil: no jack is watched (ports come from `connectPort` only).
    public var jackCard: String?
    /// How jack controls become ports: each rule's `match` is on `jack.name`; the first that matches wins.
    public var jackRules: [PortRule]

    public init(mixer: MixerControlName? = nil, jackCard: String? = nil, jackRules: [PortRule] = []) {
        self.mixer = mixer
        self.jackCard = jackCard
        self.jackRules = jackRules
    }

    /// The shipped default (Config/policy.yaml): the first card's `Master`, its jacks by their usual names.
    public static let standard = AlsaSettings(
        mixer: MixerControlName(card: "default", control: "Master"),
        jackCard: "hw:0",
        jackRules: [
            jack(["*Headphone*"], .headphones),
            jack(["*Headset Mic*"], .headsetMic),
            jack(["*Line Out*"], .lineOut),
            jack(["*HDMI*", "*DisplayPort*", "*DP,pcm*"], .hdmi),
            jack(["*Line*"], .lineIn),
            jack(["Mic Jack", "*Front Mic*", "*Rear Mic*"], .headsetMic),
        ]
    )

    /// The port a jack control stands for; nil when no rule names one (the jack is ignored).
    public func port(ofJack name: String) -> Port? {
        jackRules.first { $0.matches(["jack.name": name]) }?.port
    }

    private static func jack(_ patterns: [String], _ port: Port) -> PortRule {
        PortRule(match: ["jack.name": patterns], port: port)
    }
}

/// An ALSA simple mixer control on a card: `default` and `Master`, `hw:0` and `PCM`, `pulse` and `Master`.
public struct MixerControlName: Sendable, Hashable, CustomStringConvertible {
    public var card: String
    public var control: String

    public init(card: String, control: String) {
        self.card = card
        self.control = control
    }

    public var description: String { "'\(control)' on \(card)" }
}
