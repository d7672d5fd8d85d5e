import AudioSessionPolicy
import AudioSessionProtocol

/// Everything the session tells its app, in the order it happened: what `AudioSession.notifications` yields.
public enum AudioSessionNotification: Sendable, Equatable {
    /// Another session took the audio, or gave it back.
    case interruption(InterruptionNotification)
    /// The session's route changed.
    case routeChange(RouteChangeNotification)
    /// Secondary audio (a game's soundtrack) should fall silent, or may play again (A7).
    case silenceSecondaryAudioHint(SilenceSecondaryAudioHintNotification)
    /// The daemon, or its sound server, went away. Nothing can be activated until the reset.
    case mediaServicesWereLost(MediaServicesNotification)
    /// The daemon is back and the library restored what it could (docs/CLIENT.md); check `isActive`.
    case mediaServicesWereReset(MediaServicesNotification)
}

/// An interruption beginning or ending, as `AVAudioSession.interruptionNotification` carries it.
public struct InterruptionNotification: Sendable, Equatable {
    /// Whether the interruption began or ended.
    public enum InterruptionType: String, Sendable, Hashable {
        /// The session was interrupted: its output is silent until it is active again.
        case began
        /// The interruption is over; see `options`.
        case ended
    }

    /// Why the session was interrupted (iOS's `AVAudioSession.InterruptionReason`). The daemon interrupts
    /// only for another session (A4-A6, C7, D4), so today it is `.default`; see docs/CLIENT.md.
    public enum Reason: String, Sendable, Hashable {
        /// Another app's session took the audio.
        case `default`
        /// The app was put in the background.
        case appWasSuspended
        /// The built-in microphone was muted.
        case builtInMicMuted
        /// The route the session played to went away.
        case routeDisconnected
    }

    /// What an ended interruption allows.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt
        /// Options with the given bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The interrupter deactivated with `notifyOthersOnDeactivation`: the app may resume playing (D3).
        public static let shouldResume = Options(rawValue: 1)
    }

    /// Began or ended.
    public var type: InterruptionType
    /// Why, as far as the rule tells it.
    public var reason: Reason
    /// For `.ended`: whether the app may resume.
    public var options: Options
    /// The daemon's words, with the rule: `"interrupted by phone (A6)"`.
    public var because: String?
    /// The POLICY rule in `because`, e.g. `"A6"`.
    public var rule: String?

    /// Shorthand for `options.contains(.shouldResume)`.
    public var shouldResume: Bool { options.contains(.shouldResume) }

    /// A notification with the given parts.
    public init(type: InterruptionType, reason: Reason = .default, options: Options = [], because: String? = nil) {
        self.type = type
        self.reason = reason
        self.options = options
        self.because = because
        self.rule = because.flatMap(Self.rule(in:))
    }

    /// Maps the rule at the end of the daemon's `because` ("... (A6)") to iOS's reasons.
    static func reason(forRule rule: String?) -> Reason {
        switch rule {
        case "R4": .routeDisconnected
        case "O5", "A3": .appWasSuspended
        default: .default
        }
    }

    /// The rule in parentheses at the end of a `because` text.
    static func rule(in because: String) -> String? {
        guard because.hasSuffix(")"), let open = because.lastIndex(of: "(") else { return nil }
        let rule = because[because.index(after: open)..<because.index(before: because.endIndex)]
        return Rule(rawValue: String(rule)) == nil ? nil : String(rule)
    }
}

/// Why a session's route changed (`AVAudioSession.RouteChangeReason`).
public struct RouteChangeNotification: Sendable, Equatable {
    /// The daemon's reason: `newDeviceAvailable`, `oldDeviceUnavailable`, `categoryChange`, `override`.
    public var reason: RouteChangeReason
    /// The route before the change.
    public var previousRoute: RouteDescription
    /// The route after it.
    public var currentRoute: RouteDescription
    /// The daemon's words, with the rule.
    public var because: String?

    /// A notification with the given parts.
    public init(
        reason: RouteChangeReason,
        previousRoute: RouteDescription,
        currentRoute: RouteDescription,
        because: String?
    ) {
        self.reason = reason
        self.previousRoute = previousRoute
        self.currentRoute = currentRoute
        self.because = because
    }
}

/// The secondary-audio hint changing (`AVAudioSession.silenceSecondaryAudioHintNotification`).
public struct SilenceSecondaryAudioHintNotification: Sendable, Equatable {
    /// Whether secondary audio should be silenced from now on, or may play again.
    public enum HintType: String, Sendable, Hashable {
        /// Another app's nonmixable audio plays: silence secondary audio.
        case begin
        /// It stopped: secondary audio may play again.
        case end
    }

    /// Begin or end.
    public var type: HintType
    /// The daemon's words, with the rule (A7).
    public var because: String?

    /// A notification with the given parts.
    public init(type: HintType, because: String?) {
        self.type = type
        self.because = because
    }
}

/// Media services lost or reset.
public struct MediaServicesNotification: Sendable, Equatable {
    /// What happened: the daemon's words when it sent it, the library's when the connection dropped.
    public var because: String

    /// A notification saying why.
    public init(because: String) { self.because = because }
}

extension AudioSessionNotification {
    /// The notification an event from the daemon stands for; nil for events that are not notifications.
    init?(_ event: Event) {
        switch event.event {
        case .interruption:
            let type: InterruptionNotification.InterruptionType = event.type == "ended" ? .ended : .began
            let rule = event.because.flatMap(InterruptionNotification.rule(in:))
            self = .interruption(
                InterruptionNotification(
                    type: type,
                    reason: InterruptionNotification.reason(forRule: rule),
                    options: event.shouldResume == true ? .shouldResume : [],
                    because: event.because
                )
            )
        case .routeChange:
            guard let reason = event.reason else { return nil }
            self = .routeChange(
                RouteChangeNotification(
                    reason: reason,
                    previousRoute: RouteDescription(event.previousRoute),
                    currentRoute: RouteDescription(event.currentRoute),
                    because: event.because
                )
            )
        case .silenceSecondaryAudioHint:
            self = .silenceSecondaryAudioHint(
                SilenceSecondaryAudioHintNotification(type: event.type == "end" ? .end : .begin, because: event.because)
            )
        case .mediaServicesWereLost:
            self = .mediaServicesWereLost(
                MediaServicesNotification(because: event.because ?? "the sound server was lost (M1)")
            )
        case .mediaServicesWereReset:
            self = .mediaServicesWereReset(
                MediaServicesNotification(because: event.because ?? "the sound server is back (M1)")
            )
        case .status, .streamVerdict:
            return nil
        }
    }
}
