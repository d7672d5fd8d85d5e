import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What systemd tells the daemon through its environment: where to send notifications (`NOTIFY_SOCKET`), how
/// often it wants to hear that the daemon is alive (`WATCHDOG_USEC`, `WATCHDOG_PID`), and the listening socket
/// it opened for the daemon (`LISTEN_PID`, `LISTEN_FDS`). Read the way libsystemd's `sd_notify`,
/// `sd_watchdog_enabled` and `sd_listen_fds` read it, without linking libsystemd. Empty when not run by
/// systemd: then the daemon does nothing differently.
public struct SystemdEnvironment: Sendable, Equatable {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    public static let firstPassedDescriptor: Int32 = 3

    /// `NOTIFY_SOCKET`: a socket path, or an abstract name starting with `@`.
    public var notifySocket: String?
    /// `WATCHDOG_USEC`, when meant for this process (`WATCHDOG_PID` unset or equal to its pid): systemd kills the
    /// daemon if it hears nothing for this long. The daemon pings at half of it.
    public var watchdogTimeout: Duration?
    /// The listening control socket systemd passed (descriptor 3), when `LISTEN_PID` is this process.
    public var listeningSocket: Int32?
    /// How many descriptors systemd passed; only the first is used.
    public var passedDescriptorCount: Int

    public init(
        notifySocket: String? = nil,
        watchdogTimeout: Duration? = nil,
        listeningSocket: Int32? = nil,
        passedDescriptorCount: Int = 0
    ) {
        self.notifySocket = notifySocket
        self.watchdogTimeout = watchdogTimeout
        self.listeningSocket = listeningSocket
        self.passedDescriptorCount = passedDescriptorCount
    }

    /// Reads `environment` as process `processID` would. Throws when systemd's variables are meant for this
    /// process but malformed (a unit or wrapper that got them wrong), rather than guessing.
    public init(environment: [String: String], processID: Int32) throws {
        self.init()
        if let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty {
            guard socket.hasPrefix("/") || socket.hasPrefix("@") else {
                throw DaemonError("NOTIFY_SOCKET='\(socket)' is neither a socket path nor an abstract name (@...)")
            }
            notifySocket = socket
        }
        if let microseconds = environment["WATCHDOG_USEC"],
            Self.isForThisProcess(environment["WATCHDOG_PID"], processID)
        {
            guard let value = UInt64(microseconds), value > 0 else {
                throw DaemonError("WATCHDOG_USEC='\(microseconds)' is not a positive number of microseconds")
            }
            watchdogTimeout = .microseconds(value)
        }
        if let listenPID = environment["LISTEN_PID"], Self.isForThisProcess(listenPID, processID) {
            guard let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 0 else {
                throw DaemonError("LISTEN_FDS='\(environment["LISTEN_FDS"] ?? "")' is not a number of descriptors")
            }
            passedDescriptorCount = count
            listeningSocket = count > 0 ? Self.firstPassedDescriptor : nil
        }
    }

    /// This process's systemd environment. The `LISTEN_*` variables are removed, as `sd_listen_fds(1)` does, so
    /// that no child takes the socket for its own; the passed descriptors are closed on exec.
    public static func take() throws -> SystemdEnvironment {
        defer {
            for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        }
        let systemd = try SystemdEnvironment(environment: ProcessInfo.processInfo.environment, processID: getpid())
        for offset in 0..<Int32(systemd.passedDescriptorCount) {
            let descriptor = firstPassedDescriptor + offset
            let flags = fcntl(descriptor, F_GETFD)
            guard flags >= 0, fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else {
                throw DaemonError(
                    "LISTEN_FDS=\(systemd.passedDescriptorCount), but descriptor \(descriptor) is not open: errno \(errno)"
                )
            }
        }
        return systemd
    }

    /// A `*_PID` variable names this process, or is absent (`WATCHDOG_PID` may be).
    private static func isForThisProcess(_ pid: String?, _ processID: Int32) -> Bool {
        guard let pid else { return true }
        return Int32(pid) == processID
    }
}

/// The control socket systemd passed: checked to be what the daemon can serve (a listening Unix stream socket,
/// whose peers' credentials can be read), and named for the log.
enum SystemdListeningSocket {
    /// The socket's path (or `@name`); throws naming what is wrong with the descriptor.
    static func check(_ descriptor: Int32) throws -> String {
        func option(_ name: Int32) throws -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 else {
                throw DaemonError("descriptor \(descriptor) from systemd is not a socket: errno \(errno)")
            }
            return value
        }
        guard try option(SO_DOMAIN) == AF_UNIX, try option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
            throw DaemonError(
                "the socket systemd passed is not a Unix stream socket: use ListenStream=/path in the .socket unit"
            )
        }
        guard try option(SO_ACCEPTCONN) == 1 else {
            throw DaemonError("the socket systemd passed does not listen (Accept=yes is not supported)")
        }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        guard named == 0, Int(length) > pathOffset else { return "descriptor \(descriptor)" }
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(Int(length) - pathOffset)) }
        if bytes.first == 0 { return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self) }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
