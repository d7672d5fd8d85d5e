import AudioSessionPolicy

/// What the platform says over D-Bus, already in the daemon's words (`Bus/` turns messages into these).
package enum PlatformFact: Sendable, Equatable {
    /// feedbackd is on the session bus with this profile: first seen, changed, or back after a restart.
    case feedbackdProfile(String)
    /// feedbackd left the bus.
    case feedbackdGone
    /// The screen lock, as logind or the screensaver says; `source` names which, for the log.
    case screenLock(locked: Bool, source: String)
}

/// What the core knows of feedbackd.
package struct FeedbackdLedger: Sendable, Equatable {
    /// Its profile as last reported (or as last set by the daemon); nil while it is not on the bus.
    package var profile: String?
    /// Profiles the daemon set and has not heard back yet, oldest first: when feedbackd reports them they are
    /// the daemon's own change coming back, not the user's, and are not followed (a switch set twice quickly
    /// would otherwise flip back to the first for a moment).
    package var echoes: [String] = []
}

extension DaemonCore {
    /// The switch a feedbackd profile means: `full` rings; `quiet` (LEDs and haptics only) and `silent` are
    /// silent; nil for a profile feedbackd does not define.
    package static func switchPosition(forProfile profile: String) -> SilentSwitch? {
        switch profile {
        case "full": .ring
        case "quiet", "silent": .silent
        default: nil
        }
    }

    package mutating func handle(_ fact: PlatformFact) {
        switch fact {
        case .feedbackdProfile(let profile):
            if feedbackd.echoes.first == profile {
                feedbackd.echoes.removeFirst()
                feedbackd.profile = profile
                return
            }
            let appeared = feedbackd.profile == nil
            feedbackd = FeedbackdLedger(profile: profile)
            guard let position = Self.switchPosition(forProfile: profile) else {
                return effects.append(
                    .log(
                        "feedbackd: profile '\(profile)' is not full, quiet or silent; the switch stays \(engine.silentSwitchPosition.rawValue)"
                    )
                )
            }
            guard position != engine.silentSwitchPosition else {
                if appeared {
                    effects.append(
                        .log(
                            "feedbackd: on the bus with profile '\(profile)'; the switch is \(position.rawValue) already"
                        )
                    )
                }
                return
            }
            effects.append(.log("switch: \(position.rawValue), from feedbackd's profile '\(profile)'"))
            run(.silentSwitch(position))
        case .feedbackdGone:
            feedbackd = FeedbackdLedger()
            effects.append(.log("feedbackd: left the bus; the switch stays \(engine.silentSwitchPosition.rawValue)"))
        case .screenLock(let locked, let source):
            guard locked != engine.isScreenLocked else { return }
            effects.append(.log("screen: \(locked ? "locked" : "unlocked"), from \(source)"))
            run(.screenLocked(locked))
        }
    }

    /// After a switch set through the socket: feedbackd's profile follows, so that the phone's shell shows the
    /// switch. A profile that already means the switch's position stays (a user's `quiet` stays `quiet` when the
    /// switch is set to silent); otherwise ring sets `full` and silent sets `silent`.
    package mutating func tellFeedbackd() {
        guard let profile = feedbackd.profile else { return }
        let position = engine.silentSwitchPosition
        guard Self.switchPosition(forProfile: profile) != position else { return }
        let wanted = position == .ring ? "full" : "silent"
        feedbackd.profile = wanted
        feedbackd.echoes.append(wanted)
        effects.append(.setFeedbackdProfile(wanted))
        effects.append(.log("feedbackd: profile set to '\(wanted)' for the switch (\(position.rawValue))"))
    }
}
