import Locking

/// Reads interleaved PCM frames from a WAV file (PCM or float, plain or WAVE_FORMAT_EXTENSIBLE) or a raw PCM
/// file of a given format.
///
/// Thread-safe: the position is kept under a lock, so one reader may be handed to a playback thread. The file
/// is closed by `close()` or when the reader is released.
public final class AudioFileReader: Sendable {
    /// The file's path.
    public let path: String
    /// The layout of the frames `readFrames` returns.
    public let format: PCMFormat
    /// Frames in the file; a truncated WAV data chunk counts only the whole frames really there.
    public let frameCount: Int

    private let dataOffset: Int
    private let state: Locked<State>

    private struct State {
        var file: PosixFile?
        var position = 0
    }

    /// Opens `path`: as a WAV file when `rawFormat` is nil, else as headerless frames of `rawFormat`.
    /// Throws `unreadableFile`, `notWAV` or `unsupportedFormat`, naming the path and what was wrong.
    public init(path: String, rawFormat: PCMFormat? = nil) throws {
        let file = try PosixFile.openForReading(path)
        do {
            if let rawFormat {
                try rawFormat.validate("raw PCM file \(path)")
                format = rawFormat
                dataOffset = 0
                frameCount = try file.size() / rawFormat.bytesPerFrame
            } else {
                let header = try WAVHeader.read(file)
                format = header.format
                dataOffset = header.dataOffset
                frameCount = header.dataSize / header.format.bytesPerFrame
            }
        } catch {
            file.close()
            throw error
        }
        self.path = path
        state = Locked(State(file: file))
    }

    deinit {
        close()
    }

    /// The next frame `readFrames` returns.
    public var position: Int { state.withLock { $0.position } }

    /// Reads up to `max` frames from the current position; returns whole frames only, empty at the end.
    public func readFrames(max: Int) throws -> [UInt8] {
        try state.withLock { state in
            guard let file = state.file else {
                throw AlsaError(code: .closed, message: "\(path) was closed", path: path)
            }
            let frames = Swift.max(0, Swift.min(max, frameCount - state.position))
            let bytes = try file.read(
                count: frames * format.bytesPerFrame,
                at: dataOffset + state.position * format.bytesPerFrame
            )
            let whole = bytes.count / format.bytesPerFrame
            state.position += whole
            return whole * format.bytesPerFrame == bytes.count ? bytes : Array(bytes[0..<whole * format.bytesPerFrame])
        }
    }

    /// Moves to `frame` (clamped to `0...frameCount`).
    public func seek(toFrame frame: Int) {
        state.withLock { $0.position = Swift.min(Swift.max(0, frame), frameCount) }
    }

    /// Closes the file; idempotent. Later reads throw `closed`.
    public func close() {
        state.withLock { state in
            state.file?.close()
            state.file = nil
        }
    }
}
