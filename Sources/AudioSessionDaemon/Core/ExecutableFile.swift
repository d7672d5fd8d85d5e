/// Which file a program is: its device and inode, which a path can only name. Two paths are the same program
/// when they lead to the same file (a symlink, a bind mount); a copy is another file. The look at the file system
/// is the shell's (`FileIdentity.of(path:)`, in the daemon).
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
}

/// The program a client's process runs, read from `/proc/PID/exe` when it connects (D8): the kernel's word,
/// which the client cannot declare otherwise. The path is for the log; the identity is what is compared, so a
/// process in another mount namespace (a sandbox) whose own `/usr/bin/orca` is another file does not match.
/// The shell reads it (`ExecutableFile.of(processID:)`, in the daemon).
struct ExecutableFile: Sendable, Equatable {
    /// The path the kernel gives (` (deleted)` at its end when the file was replaced since the process began).
    var path: String
    var file: FileIdentity
}
