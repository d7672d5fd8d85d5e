import AudioSessionDaemonCore
import AudioSessionEventLog
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing the state directory's files. The settings are replaced atomically (a temporary file
/// written and fsynced, renamed over the old one, the directory fsynced), so after a crash or a power loss they
/// are the old version or the new one, never a mix; the stream journal is written in place, into the older of its
/// two files (`writeInPlace`, `JournalSlots`). A file that cannot be read or understood is reported (a log line
/// naming it and what was wrong), moved aside as `NAME.corrupt` for a post-mortem, and ignored: never fatal.
///
/// No symbolic link in the state directory is followed (`O_NOFOLLOW`; a rename replaces a link, never what it
/// points to), and a file written in place (the lock, the event log, the stream journal) must be a plain file
/// with no other name: whatever else stands at one of the daemon's names is reported and moved aside like a
/// corrupt file. The directory itself is the daemon's own (`StateDirectory.problem(with:)`), so no one else can
/// put a name in it.
enum StateFiles {
    /// A write that failed (`StateWriteError`, a value the core refuses requests with).
    typealias WriteError = StateWriteError

    /// Replaces `path` with `data` atomically, and durably: the file and its directory are fsynced before the call
    /// returns, so the new file outlives a power loss too.
    static func writeAtomically(_ data: Data, to path: String, logger: Logger? = nil) throws(WriteError) {
        try writeTemporary(data, for: path, logger: logger)
        let temporary = temporary(for: path)
        guard rename(temporary, path) == 0 else {
            let error = WriteError.system("cannot rename \(temporary) to", path)
            unlink(temporary)
            throw error
        }
        let directoryDescriptor = open(path.parentDirectoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// The name a file is written under before it replaces `path`.
    static func temporary(for path: String) -> String { "\(path).tmp" }

    /// Writes `data` to `path`'s temporary (`NAME.tmp`), fsynced; a rename then makes it `path`. A link or stale
    /// file left at the temporary name is removed first (reported when it is anything but a plain file), and the
    /// temporary is created anew (`O_EXCL`), so the data never goes through a link.
    private static func writeTemporary(_ data: Data, for path: String, logger: Logger?) throws(WriteError) {
        let temporary = temporary(for: path)
        // Usually nothing is there (the last temporary was renamed): one call. Whatever is there is removed
        // first, and reported unless it is a plain file.
        var descriptor = createTemporary(temporary)
        if descriptor < 0 && errno == EEXIST {
            if let oddity = oddity(at: temporary) {
                logger?.error("state file \(temporary) is \(oddity); not followed: removed")
            }
            if unlink(temporary) != 0 && errno != ENOENT {
                throw WriteError.system("cannot remove", temporary)
            }
            descriptor = createTemporary(temporary)
        }
        guard descriptor >= 0 else { throw WriteError.system("cannot create", temporary) }
        try fill(descriptor, with: data, temporary: temporary)
    }

    /// A new file at `temporary`, never through a link: fails (EEXIST) when anything is at the name.
    private static func createTemporary(_ temporary: String) -> Int32 {
        open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }

    /// Writes `data` into a new temporary's descriptor and closes it; on failure it is removed.
    private static func fill(_ descriptor: Int32, with data: Data, temporary: String) throws(WriteError) {
        do throws(WriteError) {
            try writeInPlace(data, into: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw WriteError.system("cannot write", temporary) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
    }

    /// Writes `data` at the start of the open file `descriptor` (at `path`), over what it held; what it held
    /// beyond `data` stays. Not atomic: a crash or a full disk may leave it cut short, new bytes then old ones
    /// (the stream journal tells such a write by its numbers: `JournalSlots`).
    static func writeInPlace(_ data: Data, into descriptor: Int32, path: String) throws(WriteError) {
        var written = 0
        let ok = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        guard ok else { throw WriteError.system("cannot write", path) }
    }

    /// Encodes `value` as JSON and writes it atomically; a failure is logged (the daemon goes on).
    @discardableResult
    static func save<Value: Encodable>(_ value: Value, to path: String, logger: Logger) -> Bool {
        do {
            try writeJSON(value, to: path, logger: logger)
            return true
        } catch {
            logger.error("state file \(path) not written: \(error)")
            return false
        }
    }

    /// Encodes `value` as JSON and writes it atomically; the caller decides what a failure means.
    static func writeJSON<Value: Encodable>(_ value: Value, to path: String, logger: Logger) throws(WriteError) {
        try writeAtomically(try encodeJSON(value, for: path), to: path, logger: logger)
    }

    /// A state file's JSON (keys sorted, one line).
    static func encodeJSON<Value: Encodable>(_ value: Value, for path: String) throws(WriteError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(value) + Data("\n".utf8)
        } catch {
            throw WriteError(description: "\(path): cannot encode: \(error)")
        }
    }

    /// Whether `bytes` more could be written in `directory` now: a file of that size is written (not synced:
    /// the file system reserves the blocks when it takes the data) at `space.probe` and removed. Nil when it
    /// could; the error (ENOSPC on a full disk, EDQUOT over a quota) when not.
    ///
    /// When the file system has plenty free for this user (`statvfs`: sixteen times `bytes`, and a megabyte),
    /// nothing is written: the probe's file costs a create and an unlink on the path of every request that may
    /// silence a stream, a tenth of a one-stream activation. A user quota is not in those figures; a write the
    /// quota then refuses keeps the policy from silencing, as on a full disk (docs/STATE.md, "A full disk").
    static func probeSpace(in directory: String, bytes: Int) -> WriteError? {
        var info = statvfs()
        if statvfs(directory, &info) == 0, info.f_flag & UInt(ST_RDONLY) == 0,
            Int(info.f_bavail) * Int(info.f_frsize) >= max(16 * bytes, 1 << 20)
        {
            return nil
        }
        let path = directory + "/space.probe"
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return WriteError.system("cannot create", path) }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0x20, count: 4096)
        var written = 0
        while written < bytes {
            let count = block.withUnsafeBytes { write(descriptor, $0.baseAddress!, min($0.count, bytes - written)) }
            if count < 0 {
                if errno == EINTR { continue }
                return WriteError.system("cannot write", path)
            }
            written += count
        }
        return nil
    }

    /// Removes a state file (a link is removed, not what it points to).
    static func remove(_ path: String) {
        unlink(path)
    }

    /// The file's value; nil when there is no file, or when it cannot be read or understood (then logged and
    /// moved aside). `check` may find more wrong with a value that decoded. A file written in place
    /// (`writeInPlace`) holds its value on its first line (what follows is left from a longer write), and none
    /// when it is empty (made for a write that failed or never came): nothing to report.
    static func load<Value: Decodable>(
        _ type: Value.Type,
        from path: String,
        logger: Logger,
        writtenInPlace: Bool = false,
        check: (Data) throws -> String? = { _ in nil }
    ) -> Value? {
        let problem: String
        if let oddity = oddity(at: path) {
            problem = "it is \(oddity); not followed"
        } else {
            do {
                guard let contents = try contents(of: path) else { return nil }
                if writtenInPlace && contents.isEmpty { return nil }
                let data = writtenInPlace ? contents.prefix { $0 != UInt8(ascii: "\n") } : contents
                do {
                    if let wrong = try check(data) {
                        problem = wrong
                    } else {
                        return try JSONDecoder().decode(type, from: data)
                    }
                } catch let error as DecodingError {
                    problem = describe(error, size: data.count)
                }
            } catch {
                problem = "cannot be read: \(error)"
            }
        }
        logger.error("state file \(path) ignored: \(problem)")
        rename(path, path + ".corrupt")
        return nil
    }

    /// A plain file's bytes, read without following a link; nil when there is no file. Throws when it cannot be
    /// read.
    private static func contents(of path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw WriteError(description: errnoText())
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw WriteError(description: "not a plain file")
        }
        guard let data = read(descriptor) else { throw WriteError(description: errnoText()) }
        return data
    }

    /// Opens (creating it, mode 0600) a file the daemon writes in place: the lock, the event log. Whatever
    /// stands at `path` that is not a plain file of its own (a symbolic link, a hard link to another name, a
    /// directory, a pipe) is reported and moved aside as `NAME.corrupt`, and a new file is made. Nil (logged)
    /// when it cannot be opened.
    static func openInPlace(_ path: String, flags: Int32, logger: Logger) -> Int32? {
        do {
            return try openInPlaceOrThrow(path, flags: flags, logger: logger)
        } catch {
            logger.error("state file not used: \(error)")
            return nil
        }
    }

    /// `openInPlace`, throwing what kept the file from being opened instead of logging it: for a caller that
    /// logs its failures once (the stream journal, written every turn).
    static func openInPlaceOrThrow(_ path: String, flags: Int32, logger: Logger) throws(WriteError) -> Int32 {
        if let oddity = oddity(at: path) {
            logger.error("state file \(path) is \(oddity); not followed: moved aside to \(path).corrupt")
            rename(path, path + ".corrupt")
        }
        let descriptor = open(path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WriteError.system("cannot open", path) }
        // Looked at again on what was opened: only this daemon's user could have changed the name meanwhile.
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            close(descriptor)
            var error = WriteError(description: "\(path) changed while it was opened; not used")
            error.path = path
            throw error
        }
        return descriptor
    }

    /// What stands at `path` if it is not a plain file with one name; nil for a plain file or no file.
    static func oddity(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return info.st_nlink > 1 ? "a hard link (the file has \(info.st_nlink) names)" : nil
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return "a symbolic link to \(target)"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "a device"
        }
    }

    /// Everything from the start of an open file (its offset is left alone); nil on a read error.
    static func read(_ descriptor: Int32) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(data.count)) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// What was wrong with a file's JSON, in words: the event log's (`JournalEventLogFiles.describe`).
    static func describe(_ error: DecodingError, size: Int) -> String {
        JournalEventLogFiles.describe(error, size: size)
    }

    static func errnoText() -> String { errnoText(errno) }

    /// The system's words for an error number, with its name for the usual ones: `No space left on device
    /// (ENOSPC, errno 28)`.
    static func errnoText(_ code: Int32) -> String {
        let names: [Int32: String] = [
            ENOSPC: "ENOSPC", EDQUOT: "EDQUOT", EROFS: "EROFS", EIO: "EIO", EACCES: "EACCES", EPERM: "EPERM",
            EFBIG: "EFBIG", ENOENT: "ENOENT", ELOOP: "ELOOP", EEXIST: "EEXIST",
        ]
        return "\(String(cString: strerror(code))) (\(names[code].map { "\($0), " } ?? "")errno \(code))"
    }
}

/// A state file's content: it carries its format version, and a file of another version is reported and
/// ignored like a corrupt one.
protocol StateFileContent: Codable {
    static var formatVersion: Int { get }
    var version: Int { get }
}

extension StateFiles {
    private struct VersionProbe: Decodable {
        var version: Int
    }

    /// `load`, also refusing another format version (checked first, so that a newer file is not taken for a
    /// corrupt one).
    static func loadContent<Value: StateFileContent>(_ type: Value.Type, from path: String, logger: Logger) -> Value? {
        load(type, from: path, logger: logger) { try versionProblem(of: $0, for: type) }
    }

    /// Why `data` is not of `type`'s format version (nil when it is); throws when it has no version at all.
    static func versionProblem<Value: StateFileContent>(of data: Data, for type: Value.Type) throws -> String? {
        let version = try JSONDecoder().decode(VersionProbe.self, from: data).version
        return version == Value.formatVersion
            ? nil : "format version \(version), this daemon reads \(Value.formatVersion)"
    }
}

extension StateWriteError {
    /// `what` failed on `path` with the current `errno`.
    static func system(_ what: String, _ path: String) -> StateWriteError {
        let code = errno
        var error = StateWriteError(description: "\(what) \(path): \(StateFiles.errnoText(code))")
        error.path = path
        error.code = code
        return error
    }
}
