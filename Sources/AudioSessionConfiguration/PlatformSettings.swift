/// What the daemon takes from the platform over D-Bus (docs/DBUS.md): the Ring/Silent switch from feedbackd,
/// the screen lock from logind or the screensaver. Without a session bus none of it is used.
public struct PlatformSettings: Sendable, Hashable {
    /// Where the screen lock comes from.
    public enum LockSource: String, Sendable, Hashable, CaseIterable {
        /// logind when the daemon's session is found on the system bus, else the screensaver.
        case auto
        /// The logind session's `LockedHint` and its `Lock`/`Unlock` signals (system bus).
        case logind
        /// `org.freedesktop.ScreenSaver`'s `GetActive` and `ActiveChanged` (session bus).
        case screensaver
        /// Only `audiosessionctl lock`/`unlock` and the socket.
        case off
    }

    /// The switch follows feedbackd's profile, and a switch set through the socket sets it.
    public var feedbackd: Bool
    public var lock: LockSource

    public init(feedbackd: Bool = true, lock: LockSource = .auto) {
        self.feedbackd = feedbackd
        self.lock = lock
    }

    public static let standard = PlatformSettings()
}
