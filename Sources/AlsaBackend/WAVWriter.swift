import Locking

/// Writes interleaved PCM frames to a new WAV file: the header first, with sizes patched in by `finish()`.
///
/// Thread-safe. If the writer is released without `finish()`, it finishes then (errors are lost, so call
/// `finish()` to see them); a file whose writer crashed keeps zero sizes, which `AudioFileReader` reads as data to the end of the file.
public final class WAVWriter: Sendable {
    /// The file's path.
    public let path: String
    /// The layout of the frames `append` takes.
    public let format: PCMFormat

    private let state: Locked<State>

    private struct State {
        var file: PosixFile?
        var dataBytes = 0
    }

    /// Offset of the RIFF size field and of the data size field in the header written here.
    private static let riffSizeOffset = 4
    private static let dataSizeOffset = 40
    private static let headerSize = 44

    /// Creates (or truncates) `path` and writes a WAV header for `format`. Throws `unwritableFile`.
    public init(path: String, format: PCMFormat) throws {
        try format.validate("WAV file \(path)")
        let file = try PosixFile.create(path)
        do {
            try file.write(Self.header(format), at: 0)
        } catch {
            file.close()
            throw error
        }
        self.path = path
        self.format = format
        state = Locked(State(file: file))
    }

    deinit {
        try? finish()
    }

    /// Frames appended so far.
    public var framesWritten: Int { state.withLock { $0.dataBytes / format.bytesPerFrame } }

    /// Appends whole frames; throws `invalidArgument` if `bytes` is not a whole number of frames.
    public func append(_ bytes: [UInt8]) throws {
        guard bytes.count % format.bytesPerFrame == 0 else {
            throw AlsaError(
                code: .invalidArgument,
                message: "\(bytes.count) bytes are not whole frames of \(format) (\(format.bytesPerFrame) bytes each) "
                    + "for \(path)",
                path: path
            )
        }
        try state.withLock { state in
            guard let file = state.file else {
                throw AlsaError(code: .closed, message: "\(path) was already finished", path: path)
            }
            try file.write(bytes, at: Self.headerSize + state.dataBytes)
            state.dataBytes += bytes.count
        }
    }

    /// Writes the final RIFF and data sizes and closes the file; idempotent.
    public func finish() throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            state.file = nil
            defer { file.close() }
            let dataSize = UInt32(clamping: state.dataBytes)
            var riffSize: [UInt8] = []
            // The pad byte after odd-sized data is part of the RIFF chunk.
            riffSize.appendLittleEndian(UInt32(clamping: 36 + state.dataBytes + (state.dataBytes & 1)))
            var dataSizeBytes: [UInt8] = []
            dataSizeBytes.appendLittleEndian(dataSize)
            try file.write(riffSize, at: Self.riffSizeOffset)
            try file.write(dataSizeBytes, at: Self.dataSizeOffset)
            // RIFF chunks are padded to an even size.
            if state.dataBytes & 1 == 1 { try file.write([0], at: Self.headerSize + state.dataBytes) }
        }
    }

    /// A 44-byte canonical header with zero sizes.
    private static func header(_ format: PCMFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes += Array("RIFF".utf8)
        bytes.appendLittleEndian(UInt32(36))
        bytes += Array("WAVEfmt ".utf8)
        bytes.appendLittleEndian(UInt32(16))
        bytes.appendLittleEndian(UInt16(format.sampleFormat == .float32le ? 3 : 1))
        bytes.appendLittleEndian(UInt16(format.channels))
        bytes.appendLittleEndian(UInt32(format.rate))
        bytes.appendLittleEndian(UInt32(format.rate * format.bytesPerFrame))
        bytes.appendLittleEndian(UInt16(format.bytesPerFrame))
        bytes.appendLittleEndian(UInt16(format.sampleFormat.bytesPerSample * 8))
        bytes += Array("data".utf8)
        bytes.appendLittleEndian(UInt32(0))
        return bytes
    }
}
