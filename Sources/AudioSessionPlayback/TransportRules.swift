/// How a player or recorder obeys its audio session: a value with no I/O, fed what happens (the user's
/// play and pause, the session's notifications, the daemon's verdicts) and answering what to do. `AudioPlayer`
/// and `AudioRecorder` carry the answers out on their ALSA streams; tests drive it by hand.
///
/// The rules (POLICY D3, D6, R4 and the HIG's):
/// - an interruption that begins pauses a running transport; when it ends, the transport resumes only if the
///   interruption paused it and `shouldResume` is set, or always when the app has no media controls (games:
///   the user has no play button to press);
/// - the old device going away (headphones pulled out) pauses it; it stays paused until the user plays;
/// - the gain follows the verdicts (ducked, silent, audible) when the app must apply them itself (no sound
///   server), else it stays 1: the daemon sets the volume of the sound-server stream.
public struct TransportRules: Sendable, Equatable {
    /// Whether the app shows media controls (a play button) to its user.
    public enum Controls: String, Sendable, CaseIterable {
        /// A podcast or music player: after an interruption it resumes only when told it may.
        case media
        /// A game or an app with no play button: it resumes after every interruption.
        case none
    }

    /// Where the transport is.
    public enum State: String, Sendable, Equatable {
        case stopped
        case playing
        /// Paused by the user (or the app).
        case paused
        /// Paused by an interruption; it may resume when the interruption ends.
        case interrupted
        /// Paused because its output device went away (R4); only the user resumes it.
        case pausedByRouteChange
        /// The whole file was played (or recorded to its limit).
        case finished
    }

    /// What happens to the transport.
    public enum Input: Sendable, Equatable {
        case play
        case pause
        case stop
        case interruptionBegan
        case interruptionEnded(shouldResume: Bool)
        case oldDeviceUnavailable
        /// The daemon's verdict for the stream: the gain to reach (1 audible, 0 silent, the duck level) and
        /// over how long.
        case verdict(gain: Double, fadeMilliseconds: Int)
        case reachedEnd
        /// `.start` failed: the session could not be activated (a call is active, A2) or the device failed.
        case startFailed
    }

    /// What to do about it, in order.
    public enum Action: Sendable, Equatable {
        /// Activate the session (`setActive(true)`), report the stream running, start the ALSA stream.
        case start
        /// Stop the ALSA stream where it is and report it paused.
        case pause
        /// Stop for good: drop the stream and report it removed.
        case stop
        /// Move the samples' gain to this, over this long.
        case fadeGain(to: Double, milliseconds: Int)
    }

    public let controls: Controls
    /// True when the daemon has no sound server, so the verdicts' gains are the app's to apply.
    public internal(set) var appliesGain: Bool
    public private(set) var state: State = .stopped
    /// The gain the verdicts ask for (1 until one arrives).
    public private(set) var gain: Double = 1

    public init(controls: Controls, appliesGain: Bool) {
        self.controls = controls
        self.appliesGain = appliesGain
    }

    /// Takes one input; returns what to do.
    public mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .play:
            guard state != .playing else { return [] }
            state = .playing
            return [.start]
        case .pause:
            guard state == .playing || state == .interrupted || state == .pausedByRouteChange else { return [] }
            let wasRunning = state == .playing
            state = .paused
            return wasRunning ? [.pause] : []
        case .stop:
            guard state != .stopped else { return [] }
            state = .stopped
            return [.stop]
        case .interruptionBegan:
            guard state == .playing else { return [] }
            state = .interrupted
            return [.pause]
        case .interruptionEnded(let shouldResume):
            guard state == .interrupted else { return [] }
            guard shouldResume || controls == .none else {
                // Interrupted for good (D3): the user's play button decides.
                state = .paused
                return []
            }
            state = .playing
            return [.start]
        case .oldDeviceUnavailable:
            guard state == .playing || state == .interrupted else { return [] }
            let wasRunning = state == .playing
            state = .pausedByRouteChange
            return wasRunning ? [.pause] : []
        case .verdict(let target, let milliseconds):
            guard appliesGain, target != gain else { return [] }
            gain = target
            return [.fadeGain(to: target, milliseconds: milliseconds)]
        case .reachedEnd:
            guard state == .playing else { return [] }
            state = .finished
            return [.stop]
        case .startFailed:
            guard state == .playing else { return [] }
            state = .paused
            return [.pause]
        }
    }
}
