import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The folder the daemon makes its control socket in, when it binds the socket itself (not under socket
/// activation, where the socket and its folder are systemd's). Whoever can change what is in that folder can
/// put a socket of their own in the daemon's place, and every client would talk to it; so, as ssh-agent and
/// PulseAudio do with theirs, the daemon makes a missing folder with mode 0700 and uses only one that:
///
/// - is a folder, not a symbolic link to one;
/// - belongs to the daemon's user;
/// - no one else may write to (no write permission for group or others);
///
/// and whose parents, up to `/`, belong to root or the daemon's user and are writable by no one else unless
/// sticky (`/tmp`): otherwise someone could rename the folder away and put their own in its place.
enum RuntimeDirectory {
    /// Makes the folder of the socket at `socketPath` (and any missing parent, mode 0700) and checks it; throws
    /// naming the first folder that fails and what is wrong with it.
    static func prepare(forSocket socketPath: String, userID: uid_t = geteuid()) throws {
        let directory = absolute(socketPath.parentDirectoryPath)
        try makeMissing(directory)
        if let problem = problem(ofSocketFolder: directory, userID: userID) {
            throw refusal(directory, problem)
        }
        let parent = directory.parentDirectoryPath
        guard let resolved = realpath(parent, nil) else { return }
        defer { free(resolved) }
        var path = ""
        for component in String(cString: resolved).split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if let problem = problem(ofParent: path, userID: userID) { throw refusal(path, problem) }
        }
        if let problem = problem(ofParent: "/", userID: userID) { throw refusal("/", problem) }
    }

    /// What is wrong with the socket's own folder, or nil.
    static func problem(ofSocketFolder path: String, userID: uid_t) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return "it cannot be read: \(String(cString: strerror(errno)))" }
        if (status.st_mode & S_IFMT) == S_IFLNK { return "it is a symbolic link" }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { return "it is not a folder" }
        guard status.st_uid == userID else {
            return "it belongs to uid \(status.st_uid), not to this daemon's user (uid \(userID))"
        }
        if status.st_mode & 0o022 != 0 { return othersMayWrite(status.st_mode) }
        return nil
    }

    /// What is wrong with a parent of the socket's folder (a path without symbolic links), or nil.
    static func problem(ofParent path: String, userID: uid_t) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return "it cannot be read: \(String(cString: strerror(errno)))" }
        guard status.st_uid == 0 || status.st_uid == userID else {
            return "it belongs to uid \(status.st_uid), neither root nor this daemon's user (uid \(userID))"
        }
        if status.st_mode & 0o022 != 0 && status.st_mode & S_ISVTX == 0 { return othersMayWrite(status.st_mode) }
        return nil
    }

    private static func othersMayWrite(_ mode: mode_t) -> String {
        "its mode is 0\(String(mode & 0o7777, radix: 8)): others than its owner may change what is in it"
    }

    private static func refusal(_ folder: String, _ problem: String) -> DaemonError {
        DaemonError(
            "\(folder): refusing to make the control socket here: \(problem); a socket there could be replaced by someone else's. Use a folder of this user's with mode 0700, or another --socket"
        )
    }

    /// Makes each missing folder of `path` with mode 0700, from the root down. One that appears meanwhile
    /// (EEXIST) is checked like any other.
    private static func makeMissing(_ path: String) throws {
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            var status = stat()
            if lstat(prefix, &status) == 0 { continue }
            guard mkdir(prefix, 0o700) == 0 || errno == EEXIST else {
                throw DaemonError(
                    "cannot make the control socket's folder \(prefix): \(String(cString: strerror(errno)))"
                )
            }
        }
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let current = FileManager.default.currentDirectoryPath
        return path.isEmpty ? current : current + "/" + path
    }
}
