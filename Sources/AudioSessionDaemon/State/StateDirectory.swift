import AudioSessionEventLog
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Where the daemon keeps what must outlive it (docs/STATE.md): the user's settings, the stream journal and
/// the event log. One daemon at a time owns a state directory; it holds an exclusive lock on `lock` in it for
/// as long as it runs (the kernel drops the lock when the process dies, however it dies).
///
/// The directory must be the daemon's own: owned by its user and writable by no one else. Then no one else can
/// put a name in it, and the daemon follows no symbolic link in it (`StateFiles`), so nothing it writes lands
/// outside it.
public final class StateDirectory: Sendable {
    public let path: String
    /// The open lock file; kept open for the daemon's lifetime.
    private let lockDescriptor: Int32

    /// A directory the daemon will not serve from: it exits with status 1 and this message rather than write
    /// where others could redirect it.
    public struct Refusal: Error, CustomStringConvertible {
        public var path: String
        public var problem: String
        public var description: String { "state directory \(path) refused: \(problem)" }
    }

    /// The default: `$STATE_DIRECTORY` (what systemd's `StateDirectory=` sets) when set, else
    /// `/var/lib/audiosessiond` for a system-wide daemon (running as root), else
    /// `$XDG_STATE_HOME/audiosessiond`, else `~/.local/state/audiosessiond`; where `audiosessionctl journal export`
    /// looks for the event log (`JournalEventLogFiles.defaultStateDirectory`).
    public static func defaultPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = getuid()
    ) -> String {
        JournalEventLogFiles.defaultStateDirectory(environment: environment, userID: userID)
    }

    /// Creates the directory (mode 0700) if needed, checks that it is the daemon's own and takes its lock.
    /// Throws a `Refusal` when it is not the daemon's own (another owner, writable by others, not a
    /// directory). Nil, with the reason logged, when it cannot be made or another daemon holds it: the daemon
    /// then runs without persisted state.
    public static func open(_ path: String, logger: Logger) throws -> StateDirectory? {
        let parent = path.parentDirectoryPath
        do {
            if !parent.isEmpty {
                try FileManager.default.createDirectory(
                    atPath: parent,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            }
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw StateFiles.WriteError(description: StateFiles.errnoText())
            }
        } catch {
            logger.error("state directory \(path) cannot be created: \(error); running without persisted state")
            return nil
        }
        if let problem = problem(with: path) { throw Refusal(path: path, problem: problem) }
        let lockPath = path + "/lock"
        guard let descriptor = StateFiles.openInPlace(lockPath, flags: O_RDWR, logger: logger) else {
            logger.error("state directory \(path): cannot open \(lockPath); running without persisted state")
            return nil
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                StateFiles.read(descriptor).flatMap { String(data: $0, encoding: .utf8) }?
                .trimmingWhitespace ?? "?"
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

    /// What makes `path` unfit to be the daemon's state directory, nil when it is fit: it must be a directory
    /// (a symbolic link to one is followed: systemd's `DynamicUser=` makes `/var/lib/NAME` one), owned by the
    /// daemon's user, and writable by neither its group nor others. Readable by others is accepted: systemd's
    /// `StateDirectoryMode=` may make it 0755.
    static func problem(with path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot be examined: \(StateFiles.errnoText())" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
        let user = geteuid()
        guard info.st_uid == user else {
            return "it is owned by \(userName(info.st_uid)), not by \(userName(user)) who runs the daemon; "
                + "the daemon keeps its state only in a directory of its own"
        }
        let octal = String(info.st_mode & 0o7777, radix: 8)
        let mode = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        let writers = [(S_IWGRP, "its group"), (S_IWOTH, "others")].filter { info.st_mode & $0.0 != 0 }.map(\.1)
        guard writers.isEmpty else {
            return "it is writable by \(writers.joined(separator: " and ")) (mode \(mode)), who could plant "
                + "files or links in it; make it 0700 (chmod 700 \(path))"
        }
        return nil
    }

    /// `uid 65534 (nobody)`.
    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: name)))"
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
