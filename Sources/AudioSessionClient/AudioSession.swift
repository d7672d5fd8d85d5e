import AudioSessionPolicy
import AudioSessionProtocol
import FoundationEssentials
import Locking

/// An app's audio session, as `AVAudioSession` presents it, kept by audiosessiond over its control socket.
///
/// Calls are synchronous and throwing like iOS's: each sends one request and waits for its reply, from any
/// thread (they block the caller for a round trip, so from async code they hold a thread that long, as iOS's
/// do). The connection has one owner, a lock: a call takes it and runs on its caller's thread; between calls a
/// listener thread takes it to read events and to reconnect with backoff when the daemon goes away. The session
/// connects on first use and says `hello` and `subscribe` (docs/CLIENT.md). Call `close()` when done: the
/// listener thread keeps the session alive until then.
public final class AudioSession: Sendable {
    /// The app's session on the daemon's socket: `$AUDIOSESSIOND_SOCKET`, else the daemon's default path.
    public static let shared = AudioSession()

    /// The daemon's control socket.
    public let socketPath: String
    /// The name the session is known by (`hello`'s `app`); `callExemptApps` and `audiosessionctl` use it.
    public let appName: String
    /// Whether the session declares itself a telephony or VoIP call (needs the daemon's own uid or root).
    public let isCall: Bool

    /// The one owner of the connection and of everything the session keeps about it (`Owner.swift`).
    let owner: Locked<SessionConnection>
    /// Which thread holds `owner`, for calls made from callbacks (`Owner.swift`).
    let ownerThread = OwnerThread()
    /// What callers read without waiting for the owner; only the owner writes it.
    let published: Locked<PublishedState>
    let notificationHub: Broadcaster<AudioSessionNotification>
    let wakeups: Wakeups

    /// A session on `socketPath` (default: as `shared`), named `appName` (default: the process name). Nothing
    /// is sent until first use. `isCall: true` declares a telephony or VoIP session, which interrupts others
    /// and may only be declared by the daemon's own user (or root); others get `notPermitted` on first use.
    public init(socketPath: String? = nil, appName: String? = nil, isCall: Bool = false) {
        self.socketPath = socketPath ?? SocketPath.fromEnvironment
        self.appName = appName ?? ProcessInfo.processInfo.processName
        self.isCall = isCall
        let published = Locked(PublishedState())
        let notificationHub = Broadcaster<AudioSessionNotification>()
        let wakeups = Wakeups()
        self.published = published
        self.notificationHub = notificationHub
        self.wakeups = wakeups
        owner = Locked(
            SessionConnection(
                socketPath: self.socketPath,
                appName: self.appName,
                isCall: isCall,
                published: published,
                notificationHub: notificationHub,
                wakeups: wakeups
            )
        )
    }

    /// A session never used has no listener thread to close its pipes. (One in use is kept alive by its listener
    /// until `close()`; the listener closes them as it ends.)
    deinit { wakeups.close() }

    // MARK: Category and activation

    /// Sets the category, mode and options (C6-C7: mode and options are not sticky). Illegal combinations
    /// throw `badParam` (rule C4 or C5) and change nothing. While the daemon is unreachable the category is
    /// remembered and applied when it connects, as iOS lets an app configure at any time.
    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = [])
        throws(AudioSessionError)
    {
        try perform { connection throws(AudioSessionError) in
            try connection.setCategory(category, mode: mode, options: options)
        }
    }

    /// Options for `setActive(false, options:)`.
    public struct SetActiveOptions: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt
        /// Options with the given bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Sessions this one interrupted are told they may resume (`shouldResume`, D3).
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Activates (A1-A7) or deactivates (D1-D3) the session. Activating without a daemon throws
    /// `daemonUnavailable`; while its sound server is lost, `mediaServicesFailed`. Deactivating with a running
    /// reported stream throws `isBusy` with `tookEffect`: the session *is* inactive.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in
            if active {
                try connection.activate()
            } else {
                try connection.deactivate(notifyOthers: options.contains(.notifyOthersOnDeactivation))
            }
        }
    }

    /// Connects to the daemon now (`hello`, `subscribe`) rather than on the first call that needs it, so that
    /// the daemon knows the app before its first sound-server stream appears (a stream of a process with no
    /// session yet would be taken for an unaware app's). Throws `daemonUnavailable` when there is no daemon;
    /// the library keeps trying either way.
    public func connect() throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in try connection.connectNow() }
    }

    /// Where `overrideOutputAudioPort` sends the output of a `playAndRecord` session.
    public enum PortOverride: String, Sendable, Hashable {
        /// The route the policy chooses (R1-R4).
        case none
        /// The built-in speaker, whatever else is connected (R5).
        case speaker
    }

    /// Sends a `playAndRecord` session's output to the speaker, or back to its route (R5); any other category
    /// throws `badParam`.
    public func overrideOutputAudioPort(_ port: PortOverride) throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in try connection.overrideOutput(port.rawValue) }
    }

    /// The session as the daemon reports it now (a round trip when connected; the last known otherwise).
    package func currentState() -> SessionStateBody? {
        _ = try? perform { connection throws(AudioSessionError) in try connection.refreshState() }
        return published.withLock { $0.snapshot }
    }

    /// The category last set (the daemon's, once it has it).
    public var category: Category { published.withLock { $0.category } }
    /// The mode last set.
    public var mode: Mode { published.withLock { $0.mode } }
    /// The options as the session reports them: those set, plus those they imply (C3, C5).
    public var categoryOptions: CategoryOptions {
        published.withLock { $0.options.reported(category: $0.category, mode: $0.mode) }
    }
    /// Whether the session is active now (false while interrupted or disconnected).
    public var isActive: Bool { published.withLock { $0.snapshot?.state == .active } }
    /// Whether another session's output is audible or ducked; asks the daemon (a round trip) when connected.
    public var isOtherAudioPlaying: Bool {
        _ = try? perform { connection throws(AudioSessionError) in try connection.refreshState() }
        return published.withLock { $0.snapshot?.isOtherAudioPlaying ?? false }
    }
    /// Whether secondary audio should be silent because another app's nonmixable audio plays (A7).
    public var secondaryAudioShouldBeSilencedHint: Bool {
        published.withLock { $0.snapshot?.secondaryAudioShouldBeSilencedHint ?? false }
    }
    /// Where the session's sound goes and comes from, as the daemon last said.
    public var currentRoute: RouteDescription { published.withLock { RouteDescription($0.snapshot?.currentRoute) } }
    /// Whether the daemon enforces verdicts on sound-server streams itself (`hello`'s `soundServer`): true with
    /// a sound server, false with `--no-sound-server`, where a player applies `ReportedStream` gains to its own
    /// samples. Nil until the session has connected.
    public var soundServerEnforces: Bool? { published.withLock { $0.soundServer } }
    /// The daemon's number for this session (`PULSE_PROP='audiosession.id=N'`); nil until connected. A new
    /// number after each reconnection.
    public var sessionNumber: Int? { published.withLock { $0.snapshot?.session } }

    // MARK: Notifications

    /// Every notification, in the order it arrived. Each access makes a new sequence that sees what happens
    /// from then on; all sequences end when the session is closed.
    public var notifications: AsyncStream<AudioSessionNotification> { notificationHub.stream { $0 } }

    /// Interruptions beginning and ending.
    public var interruptions: AsyncStream<InterruptionNotification> {
        notificationHub.stream { if case .interruption(let note) = $0 { note } else { nil } }
    }
    /// Route changes.
    public var routeChanges: AsyncStream<RouteChangeNotification> {
        notificationHub.stream { if case .routeChange(let note) = $0 { note } else { nil } }
    }
    /// The secondary-audio hint beginning and ending.
    public var silenceSecondaryAudioHints: AsyncStream<SilenceSecondaryAudioHintNotification> {
        notificationHub.stream { if case .silenceSecondaryAudioHint(let note) = $0 { note } else { nil } }
    }
    /// The daemon or its sound server going away.
    public var mediaServicesWereLost: AsyncStream<MediaServicesNotification> {
        notificationHub.stream { if case .mediaServicesWereLost(let note) = $0 { note } else { nil } }
    }
    /// The daemon or its sound server back, after the library restored the session.
    public var mediaServicesWereReset: AsyncStream<MediaServicesNotification> {
        notificationHub.stream { if case .mediaServicesWereReset(let note) = $0 { note } else { nil } }
    }

    // MARK: Reported streams

    /// Reports a stream the app plays or records itself (through ALSA, say) as running; this may activate the
    /// session (D5). Its verdicts arrive on `verdicts`, and also on `onVerdict`, which runs as soon as the verdict
    /// is read, on the thread that read it (a caller's, inside its call, or the session's listener thread), the
    /// session's lock held: for a real-time thread that keeps the gain in an atomic. Keep `onVerdict` short and
    /// non-blocking; it may call the session (the call runs at once). Refused activation (a call, A2) throws and
    /// leaves no stream behind.
    public func startStream(
        direction: StreamDirection,
        onVerdict: (@Sendable (StreamVerdictUpdate) -> Void)? = nil
    ) throws(AudioSessionError) -> ReportedStream {
        try perform { connection throws(AudioSessionError) in
            try connection.startStream(direction: direction, session: self, onVerdict: onVerdict)
        }
    }

    func pauseStream(_ stream: ReportedStream) throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in try connection.pause(stream) }
    }

    func resumeStream(_ stream: ReportedStream) throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in try connection.resume(stream) }
    }

    func removeStream(_ stream: ReportedStream) throws(AudioSessionError) {
        try perform { connection throws(AudioSessionError) in try connection.remove(stream) }
    }

    // MARK: Closing

    /// Disconnects (the daemon ends the session, D-rules as for any disconnection) and ends every notification
    /// and verdict sequence; a call waiting for its reply gives up with `daemonUnavailable`, and the listener
    /// thread ends. Calls after this throw `daemonUnavailable`. Allowed from inside `onVerdict`.
    public func close() { closeOwned() }
}
