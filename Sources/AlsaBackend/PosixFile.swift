import Glibc

/// An open file descriptor with positioned reads and writes whose failures are `AlsaError`s naming the path.
/// Not thread-safe on its own; its owners keep it inside a `Locked`.
struct PosixFile: Sendable {
    let descriptor: Int32
    let path: String

    /// Opens `path` for reading; a directory is refused here because `open` accepts it and only `read` fails.
    static func openForReading(_ path: String) throws -> PosixFile {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errnoText(errno)
            throw AlsaError(code: .unreadableFile, message: "cannot open \(path): \(reason)", path: path)
        }
        let file = PosixFile(descriptor: descriptor, path: path)
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            file.close()
            throw AlsaError(code: .unreadableFile, message: "cannot read \(path): it is a directory", path: path)
        }
        return file
    }

    /// Creates or truncates `path` for writing.
    static func create(_ path: String) throws -> PosixFile {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errnoText(errno)
            throw AlsaError(code: .unwritableFile, message: "cannot create \(path): \(reason)", path: path)
        }
        return PosixFile(descriptor: descriptor, path: path)
    }

    /// The file's size in bytes.
    func size() throws -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = errnoText(errno)
            throw AlsaError(code: .unreadableFile, message: "cannot stat \(path): \(reason)", path: path)
        }
        return Int(status.st_size)
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(count: Int, at offset: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = errnoText(errno)
                throw AlsaError(
                    code: .unreadableFile,
                    message: "cannot read \(path) at byte \(offset + filled): \(reason)",
                    path: path
                )
            }
            if result == 0 { break }
            filled += result
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) throws {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, bytes.count - written, off_t(offset + written))
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = errnoText(errno)
                throw AlsaError(
                    code: .unwritableFile,
                    message: "cannot write \(path) at byte \(offset + written): \(reason)",
                    path: path
                )
            }
            written += result
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}

extension [UInt8] {
    /// The little-endian integer at `offset`.
    func littleEndian<Integer: FixedWidthInteger>(_: Integer.Type, at offset: Int) -> Integer {
        var value = Integer.zero
        for index in 0..<Integer.bitWidth / 8 {
            value |= Integer(truncatingIfNeeded: self[offset + index]) << (8 * index)
        }
        return value
    }

    /// Appends `value` little-endian.
    mutating func appendLittleEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        for index in 0..<Integer.bitWidth / 8 {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}
