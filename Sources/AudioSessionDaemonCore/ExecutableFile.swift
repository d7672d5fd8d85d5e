/// Which file a program is: its device and inode, which a path can only name. Two paths are the same program
/// when they lead to the same file (a symlink, a bind mount); a copy is another file. The look at the file system
/// is the shell's (`FileIdentity.of(path:)`, in the daemon).
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// The program a client's process runs, read from `/proc/PID/exe` when it connects (D8): the kernel's word,
/// which the client cannot declare otherwise. The path is for the log; the identity is what is compared, so a
/// process in another mount namespace (a sandbox) whose own `/usr/bin/orca` is another file does not match.
/// The shell reads it (`ExecutableFile.of(processID:)`, in the daemon).
package struct ExecutableFile: Sendable, Equatable {
    /// The path the kernel gives (` (deleted)` at its end when the file was replaced since the process began).
    package var path: String
    package var file: FileIdentity

    package init(path: String, file: FileIdentity) {
        self.path = path
        self.file = file
    }
}
