import AudioSessionDaemonCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension FileIdentity {
    /// The file `path` leads to now, symlinks followed; nil when there is none.
    static func of(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

extension ExecutableFile {
    static func of(processID: Int32) -> ExecutableFile? {
        let link = "/proc/\(processID)/exe"
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
            let file = FileIdentity.of(path: link)
        else { return nil }
        return ExecutableFile(path: path, file: file)
    }
}
