import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where the daemon finds the platform's D-Bus services: feedbackd and the screensaver on the session bus,
/// logind on the system bus.
public struct PlatformBuses: Sendable, Equatable {
    /// The session bus's address; nil: no session bus (feedbackd and the screensaver are not followed).
    public var session: String?
    /// The system bus's address (logind); nil: no system bus.
    public var system: String?
    /// The logind session whose lock the daemon follows; nil: the daemon's own (`GetSessionByPID`).
    public var logindSession: String?

    public init(session: String? = nil, system: String? = nil, logindSession: String? = nil) {
        self.session = session
        self.system = system
        self.logindSession = logindSession
    }

    /// As a program of the user's session finds them: `$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` when it is there; `$DBUS_SYSTEM_BUS_ADDRESS`, else
    /// `/run/dbus/system_bus_socket` when it is there; `$XDG_SESSION_ID`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> PlatformBuses
    {
        func socket(_ path: String?) -> String? {
            guard let path, FileManager.default.fileExists(atPath: path) else { return nil }
            return "unix:path=\(path)"
        }
        func nonEmpty(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        return PlatformBuses(
            session: nonEmpty("DBUS_SESSION_BUS_ADDRESS") ?? socket(nonEmpty("XDG_RUNTIME_DIR").map { $0 + "/bus" }),
            system: nonEmpty("DBUS_SYSTEM_BUS_ADDRESS") ?? socket("/run/dbus/system_bus_socket"),
            logindSession: nonEmpty("XDG_SESSION_ID")
        )
    }
}
