import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which file a program is: its device and inode, which a path can only name. Two paths are the same program
/// when they lead to the same file (a symlink, a bind mount); a copy is another file.
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64

    /// The file `path` leads to now, symlinks followed; nil when there is none.
    static func of(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// The program a client's process runs, read from `/proc/PID/exe` when it connects (D8): the kernel's word,
/// which the client cannot declare otherwise. The path is for the log; the identity is what is compared, so a
/// process in another mount namespace (a sandbox) whose own `/usr/bin/orca` is another file does not match.
struct ExecutableFile: Sendable, Equatable {
    /// The path the kernel gives (` (deleted)` at its end when the file was replaced since the process began).
    var path: String
    var file: FileIdentity

    static func of(processID: Int32) -> ExecutableFile? {
        let link = "/proc/\(processID)/exe"
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
            let file = FileIdentity.of(path: link)
        else { return nil }
        return ExecutableFile(path: path, file: file)
    }
}
