import AudioSessionPolicy
import AudioSessionProtocol
import Locking

/// How a reported stream must sound now: what the daemon's `streamVerdict` says.
public struct StreamVerdictUpdate: Sendable, Equatable {
    /// The verdict's kind.
    public enum Verdict: String, Sendable, Hashable {
        /// Play at full gain.
        case audible
        /// Play at `gain`, reached over `fadeMilliseconds` (another session ducks this one, O7).
        case ducked
        /// Play silence (keep the device running: the daemon never pauses a stream, D6).
        case silent
        /// Record normally.
        case capturing
        /// Record silence.
        case muted
    }

    /// What to do with the samples.
    public var verdict: Verdict
    /// The linear gain to multiply the samples by: 1 when audible or capturing, 0 when silent or muted, the
    /// daemon's duck level (e.g. 0.25) when ducked.
    public var gain: Double
    /// How long the change of gain should take; 0 for an immediate change.
    public var fadeMilliseconds: Int
    /// The port the stream plays to (output) or records from (input).
    public var currentRoute: RouteDescription

    /// An update with the given parts.
    public init(verdict: Verdict, gain: Double, fadeMilliseconds: Int = 0, currentRoute: RouteDescription = .init()) {
        self.verdict = verdict
        self.gain = gain
        self.fadeMilliseconds = fadeMilliseconds
        self.currentRoute = currentRoute
    }

    /// The update a `streamVerdict` event carries; nil when the verdict is not one this library knows.
    init?(_ event: Event) {
        guard let word = event.verdict, let verdict = Verdict(rawValue: word) else { return nil }
        let defaultGain: Double = (verdict == .audible || verdict == .capturing) ? 1 : 0
        self.init(
            verdict: verdict,
            gain: event.gain ?? defaultGain,
            fadeMilliseconds: event.fadeMilliseconds ?? 0,
            currentRoute: RouteDescription(event.currentRoute)
        )
    }
}

/// A stream the app plays or records itself (through ALSA, say), reported to the daemon so that the policy
/// counts it, with the verdicts the app must apply to its samples. Made by `AudioSession.startStream`.
public final class ReportedStream: Sendable {
    /// The library's number for it, unique within its session while it exists.
    public let number: Int
    /// Output (playback) or input (capture).
    public let direction: StreamDirection

    private struct State: Sendable {
        var current: StreamVerdictUpdate?
        var isRunning = true
        var isRemoved = false
    }

    private let state = Locked(State())
    private let updates = Broadcaster<StreamVerdictUpdate>()
    private let onVerdict: (@Sendable (StreamVerdictUpdate) -> Void)?
    private weak let session: AudioSession?

    init(
        number: Int,
        direction: StreamDirection,
        session: AudioSession,
        onVerdict: (@Sendable (StreamVerdictUpdate) -> Void)?
    ) {
        self.number = number
        self.direction = direction
        self.session = session
        self.onVerdict = onVerdict
    }

    /// Every verdict from now on, starting with none: read `current` for the one in force. Each access makes
    /// a new sequence; all of them end when the stream is removed or its session closed.
    public var verdicts: AsyncStream<StreamVerdictUpdate> { updates.stream { $0 } }

    /// The verdict in force, nil until the daemon sent one.
    public var current: StreamVerdictUpdate? { state.withLock { $0.current } }

    /// Whether the stream counts as running (started or resumed, not paused or removed).
    public var isRunning: Bool { state.withLock { $0.isRunning && !$0.isRemoved } }

    /// The stream stops running: it no longer keeps its session busy (`pauseStream`).
    public func pause() throws(AudioSessionError) {
        guard let session else { throw closedError }
        try session.pauseStream(self)
    }

    /// The stream runs again (`startStream` again); this may activate the session (D5).
    public func resume() throws(AudioSessionError) {
        guard let session else { throw closedError }
        try session.resumeStream(self)
    }

    /// The stream is gone; its verdict sequences end.
    public func remove() throws(AudioSessionError) {
        guard let session else { throw closedError }
        try session.removeStream(self)
    }

    private var closedError: AudioSessionError {
        AudioSessionError(.daemonUnavailable, "the session of stream \(number) was closed")
    }

    // MARK: Used by the holder of the session's owner lock.

    var wantsRunning: Bool { state.withLock { $0.isRunning && !$0.isRemoved } }

    func setRunning(_ running: Bool) { state.withLock { $0.isRunning = running } }

    /// A verdict arrived: kept, broadcast, and handed to the callback on the thread that read it (a caller's or
    /// the listener's), the session's owner lock held.
    func deliver(_ update: StreamVerdictUpdate) {
        state.withLock { $0.current = update }
        updates.send(update)
        onVerdict?(update)
    }

    /// Removed or closed: sequences end.
    func finish() {
        state.withLock { $0.isRemoved = true }
        updates.finish()
    }
}
