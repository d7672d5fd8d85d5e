import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Where the daemon keeps what must outlive it (docs/STATE.md): the user's settings, the stream journal and
/// the event log. One daemon at a time owns a state directory; it holds an exclusive lock on `lock` in it for
/// as long as it runs (the kernel drops the lock when the process dies, however it dies).
public final class StateDirectory: Sendable {
    public let path: String
    /// The open lock file; kept open for the daemon's lifetime.
    private let lockDescriptor: Int32

    /// The default: `$STATE_DIRECTORY` (what systemd's `StateDirectory=` sets) when set, else
    /// `/var/lib/audiosessiond` for a system-wide daemon (running as root), else
    /// `$XDG_STATE_HOME/audiosessiond`, else `~/.local/state/audiosessiond`.
    public static func defaultPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = getuid()
    ) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty {
            return String(systemd)
        }
        if userID == 0 { return "/var/lib/audiosessiond" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/audiosessiond" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/audiosessiond"
    }

    /// Creates the directory (mode 0700) if needed and takes its lock. Nil, with the reason logged, when it
    /// cannot be made or another daemon holds it: the daemon then runs without persisted state, never stops.
    public static func open(_ path: String, logger: Logger) -> StateDirectory? {
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            logger.error("state directory \(path) cannot be created: \(error); running without persisted state")
            return nil
        }
        let lockPath = path + "/lock"
        let descriptor = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            logger.error(
                "state directory \(path): cannot open \(lockPath): \(StateFiles.errnoText()); running without persisted state"
            )
            return nil
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                (try? String(contentsOfFile: lockPath, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            close(descriptor)
            logger.error(
                "state directory \(path) is in use by another audiosessiond (pid \(holder)); running without persisted state"
            )
            return nil
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return StateDirectory(path: path, lockDescriptor: descriptor)
    }

    private init(path: String, lockDescriptor: Int32) {
        self.path = path
        self.lockDescriptor = lockDescriptor
    }

    /// Releases the lock (another daemon may take the directory).
    deinit { close(lockDescriptor) }

    /// The full path of one of its files.
    public func file(_ name: String) -> String { path + "/" + name }
}
