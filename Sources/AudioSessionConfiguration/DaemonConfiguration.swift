import AudioSessionPolicy
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the daemon's configuration file sets: the policy, how devices become ports, the control socket
/// and the log level. `Config/policy.yaml` is the shipped default, equal to `DaemonConfiguration.standard`.
public struct DaemonConfiguration: Sendable, Equatable {
    public var policy: PolicyConfig
    /// D8: the clients of the control socket exempt from A2 by who they are (`callExemptApps` entries with
    /// an `executable`); the policy's own `callExemptApps` names reach only unaware apps.
    public var callExemptClients: [CallExemptClient]
    public var ports: PortRules
    /// The ALSA mixer and jacks used without a sound server.
    public var alsa: AlsaSettings
    /// The switch from feedbackd, the lock from logind or the screensaver (docs/DBUS.md).
    public var platform: PlatformSettings
    /// Nil: `$XDG_RUNTIME_DIR/audiosessiond/control`.
    public var socketPath: String?
    /// The socket's permission bits; 0600 for one user, 0660 with `socketGroup` for a system-wide daemon.
    public var socketMode: Int
    /// The group that owns the socket (system-wide daemons: the users allowed to use it).
    public var socketGroup: String?
    /// trace, debug, info, notice, warning, error or critical.
    public var logLevel: String

    public init(
        policy: PolicyConfig = .standard,
        callExemptClients: [CallExemptClient] = [],
        ports: PortRules = .standard,
        alsa: AlsaSettings = .standard,
        platform: PlatformSettings = .standard,
        socketPath: String? = nil,
        socketMode: Int = 0o600,
        socketGroup: String? = nil,
        logLevel: String = "info"
    ) {
        self.policy = policy
        self.callExemptClients = callExemptClients
        self.ports = ports
        self.alsa = alsa
        self.platform = platform
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.logLevel = logLevel
    }

    public static let standard = DaemonConfiguration()

    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
}
