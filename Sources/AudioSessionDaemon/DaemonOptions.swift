import AudioSessionConfiguration
import AudioSessionPolicy
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How to run the daemon: its configuration, where that came from (for reloads), which sound server.
public struct DaemonOptions: Sendable {
    /// The control socket; default: the configuration's, else `$XDG_RUNTIME_DIR/audiosessiond/control`.
    public var socketPath: String
    public var configuration: DaemonConfiguration
    /// The file the configuration was read from: SIGHUP reads it again. Nil: the built-in configuration.
    public var configurationPath: String?
    /// The PulseAudio server to enforce on (`unix:/path`); nil for libpulse's default. Ignored with
    /// `soundServer == false`.
    public var pulseServer: String?
    /// False to run with no sound server at all (policy and client-reported streams only).
    public var soundServer: Bool
    /// With no sound server: run the ALSA mixer control and jack controls of `configuration.alsa`.
    public var alsa: Bool
    /// Called once the socket listens (tests wait on it).
    public var onReady: (@Sendable () -> Void)?
    /// The state directory (docs/STATE.md): settings, stream journal, event log. Nil: nothing is kept (the
    /// `audiosessiond` command passes `StateDirectory.defaultPath()` unless told otherwise).
    public var stateDirectory: String?
    /// How many events the event log keeps (the last `eventLogLimit / 2` to `eventLogLimit`); 0: no event log.
    public var eventLogLimit: Int
    /// What systemd passed: where to notify it, its watchdog, the listening socket (`SystemdEnvironment.take()`).
    public var systemd: SystemdEnvironment
    /// The log level was given on the command line (`--log-level`): it stands over the file's, reloads too.
    public var logLevelFromCommandLine: Bool
    /// The session and system buses for feedbackd, logind and the screensaver (docs/DBUS.md). None by default:
    /// the `audiosessiond` command passes `PlatformBuses.fromEnvironment()` unless told otherwise.
    public var buses: PlatformBuses
    /// Where the daemon's D-Bus interface is served (docs/DBUS.md); `.none` by default, the `audiosessiond`
    /// command passes `--dbus-interface` (the session bus unless told otherwise).
    public var dbusFace: DBusFaceBus

    public init(
        socketPath: String? = nil,
        configuration: DaemonConfiguration = .standard,
        configurationPath: String? = nil,
        pulseServer: String? = nil,
        soundServer: Bool = true,
        alsa: Bool = false,
        onReady: (@Sendable () -> Void)? = nil,
        stateDirectory: String? = nil,
        eventLogLimit: Int = 10_000,
        systemd: SystemdEnvironment = SystemdEnvironment(),
        logLevelFromCommandLine: Bool = false,
        buses: PlatformBuses = PlatformBuses(),
        dbusFace: DBusFaceBus = .none
    ) {
        self.buses = buses
        self.dbusFace = dbusFace
        self.stateDirectory = stateDirectory
        self.eventLogLimit = eventLogLimit
        self.socketPath = socketPath ?? configuration.socketPath ?? DaemonOptions.defaultSocketPath
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.pulseServer = pulseServer
        self.soundServer = soundServer
        self.alsa = alsa && !soundServer
        self.onReady = onReady
        self.systemd = systemd
        self.logLevelFromCommandLine = logLevelFromCommandLine
    }

    /// `$AUDIOSESSIOND_SOCKET` (what clients read too), else `$XDG_RUNTIME_DIR/audiosessiond/control`, or under
    /// /tmp for a user without a runtime directory.
    public static var defaultSocketPath: String {
        if let explicit = ProcessInfo.processInfo.environment["AUDIOSESSIOND_SOCKET"], !explicit.isEmpty {
            return explicit
        }
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/tmp/audiosessiond-\(getuid())"
        return runtime + "/audiosessiond/control"
    }
}
