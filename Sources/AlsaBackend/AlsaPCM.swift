internal import CAlsa
import Glibc
import Locking

/// An open ALSA PCM (`default`, `pulse`, `hw:0,0`, `null`...) for playback or capture of interleaved frames.
///
/// Meant to be driven by one dedicated audio thread that calls `write` or `read` in a loop; `pause`, `resume`,
/// `drop` and `close` may come from any other thread. Every ALSA call is made under one lock, and blocking
/// transfers are cut into periods, so another thread waits at most about one period (a quarter of the buffer).
/// While paused, `write` and `read` wait (without the lock) until `resume`, `drop` or `close`.
public final class AlsaPCM: Sendable {
    /// Which way audio flows.
    public enum Direction: String, Sendable, Hashable {
        /// Frames are written to the device.
        case playback
        /// Frames are read from the device.
        case capture
    }

    /// The ALSA name the PCM was opened with.
    public let device: String
    /// Which way audio flows.
    public let direction: Direction
    /// The layout of the frames written or read.
    public let format: PCMFormat
    /// The device's buffer, in frames, as ALSA granted it.
    public let bufferFrames: Int
    /// The device's period (the unit of transfer and wake-up), in frames.
    public let periodFrames: Int
    /// Whether the device can pause in place (`snd_pcm_pause`); when it cannot, `pause()` drops the queued
    /// audio instead.
    public let canPause: Bool

    private let state: Locked<State>

    private enum Pause {
        case none
        /// Paused with `snd_pcm_pause`: queued frames are kept.
        case inPlace
        /// Not running: either dropped because the device cannot pause, or nothing was playing yet.
        case stopped
    }

    private struct State {
        var handle: OpaquePointer?
        var pause = Pause.none
        var underruns = 0
        var overruns = 0
        /// Bumped by `drop()`, so that a transfer in progress on another thread gives up.
        var dropGeneration = 0
    }

    /// Opens `device` for `direction` with `format` and a buffer of `bufferMilliseconds` (periods of a quarter
    /// of it); ALSA resamples and converts when the device is a plug-in such as `default` or `pulse`.
    /// Throws `deviceNotFound` or `deviceBusy` naming the device, or `unsupportedFormat` when the device
    /// (e.g. a `hw:` device) does not take the format.
    public init(
        device: String,
        direction: Direction = .playback,
        format: PCMFormat,
        bufferMilliseconds: Int = 100
    ) throws {
        _ = Alsa.silenced
        try format.validate("ALSA PCM '\(device)'")
        guard bufferMilliseconds > 0 else {
            throw AlsaError(
                code: .invalidArgument,
                message: "buffer time \(bufferMilliseconds) ms for ALSA PCM '\(device)' must be positive",
                device: device
            )
        }
        let handle = try Self.openHandle(device: device, direction: direction)
        do {
            try Alsa.check(
                snd_pcm_set_params(
                    handle,
                    format.sampleFormat.alsaFormat,
                    SND_PCM_ACCESS_RW_INTERLEAVED,
                    UInt32(format.channels),
                    UInt32(format.rate),
                    1,  // let ALSA resample where the device allows it
                    UInt32(bufferMilliseconds * 1000)
                ),
                "ALSA PCM '\(device)' does not take \(format) with a \(bufferMilliseconds) ms buffer",
                device: device,
                fallback: .unsupportedFormat
            )
            var buffer: snd_pcm_uframes_t = 0
            var period: snd_pcm_uframes_t = 0
            try Alsa.check(snd_pcm_get_params(handle, &buffer, &period), "snd_pcm_get_params", device: device)
            bufferFrames = Int(buffer)
            periodFrames = max(1, Int(period))
            canPause = Self.canPause(handle)
            // Transfers wait for room (or data) a bounded time at once, under the lock, so that `drop`, `pause`
            // and `close` from another thread get the lock within that time, whatever the device does: a
            // blocking write into a stream the sound server has not started yet can wait for seconds.
            try Alsa.check(snd_pcm_nonblock(handle, 1), "cannot make ALSA PCM '\(device)' non-blocking", device: device)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        self.device = device
        self.direction = direction
        self.format = format
        state = Locked(State(handle: handle))
    }

    deinit {
        close()
    }

    /// Underruns (the device ran dry) recovered from during `write`.
    public var underrunCount: Int { state.withLock { $0.underruns } }
    /// Overruns (frames were lost because nobody read) recovered from during `read`.
    public var overrunCount: Int { state.withLock { $0.overruns } }

    /// Frames between what is written now and what is heard now (playback), or captured but not yet read.
    /// 0 when the PCM is not running.
    public var delayFrames: Int {
        get throws {
            try state.withLock { state in
                let handle = try open(state)
                var delay: snd_pcm_sframes_t = 0
                guard snd_pcm_delay(handle, &delay) >= 0 else { return 0 }
                return max(0, Int(delay))
            }
        }
    }

    /// Writes whole frames, blocking until the device has taken them all; recovers from underruns (counting
    /// them). Returns the frames written: fewer than given only if `drop()` interrupted it. Throws `closed`
    /// after `close()`, `invalidArgument` for partial frames or on a capture PCM, `io` if ALSA cannot recover.
    @discardableResult
    public func write(_ bytes: [UInt8]) throws -> Int {
        guard direction == .playback else {
            throw AlsaError(code: .invalidArgument, message: "ALSA PCM '\(device)' is open for capture", device: device)
        }
        let total = try wholeFrames(bytes.count)
        return try bytes.withUnsafeBytes { buffer in
            try transfer(frames: total) { handle, done, count in
                snd_pcm_writei(handle, buffer.baseAddress! + done * format.bytesPerFrame, snd_pcm_uframes_t(count))
            }
        }
    }

    /// Reads `frames` frames, blocking until they are captured; recovers from overruns (counting them).
    /// Returns fewer frames only if `drop()` interrupted it.
    public func read(frames: Int) throws -> [UInt8] {
        guard direction == .capture else {
            throw AlsaError(
                code: .invalidArgument,
                message: "ALSA PCM '\(device)' is open for playback",
                device: device
            )
        }
        var bytes = [UInt8](repeating: 0, count: max(0, frames) * format.bytesPerFrame)
        let done = try bytes.withUnsafeMutableBytes { buffer in
            try transfer(frames: max(0, frames)) { handle, done, count in
                snd_pcm_readi(handle, buffer.baseAddress! + done * format.bytesPerFrame, snd_pcm_uframes_t(count))
            }
        }
        bytes.removeLast(bytes.count - done * format.bytesPerFrame)
        return bytes
    }

    /// Pauses: in place when `canPause`, else by dropping the queued frames. Idempotent.
    public func pause() throws {
        try state.withLock { state in
            let handle = try open(state)
            guard state.pause == .none else { return }
            if canPause && snd_pcm_state(handle) == SND_PCM_STATE_RUNNING {
                try Alsa.check(snd_pcm_pause(handle, 1), "cannot pause ALSA PCM '\(device)'", device: device)
                state.pause = .inPlace
            } else {
                try stopAndPrepare(handle)
                state.pause = .stopped
            }
        }
    }

    /// Resumes after `pause()`; does nothing if not paused.
    public func resume() throws {
        try state.withLock { state in
            let handle = try open(state)
            defer { state.pause = .none }
            guard state.pause == .inPlace else { return }
            if snd_pcm_pause(handle, 0) < 0 {
                // The stream fell out of the paused state (e.g. suspended); start over rather than fail.
                try stopAndPrepare(handle)
            }
        }
    }

    /// Blocks until every written frame is played, then leaves the PCM ready for more. Resumes first if paused.
    public func drain() throws {
        try state.withLock { state in
            let handle = try open(state)
            if state.pause == .inPlace { _ = snd_pcm_pause(handle, 0) }
            state.pause = .none
            // Draining waits for the device: the one blocking call, made in blocking mode.
            snd_pcm_nonblock(handle, 0)
            defer { snd_pcm_nonblock(handle, 1) }
            let result = snd_pcm_drain(handle)
            if result < 0 && result != -EBADFD {
                try Alsa.check(result, "cannot drain ALSA PCM '\(device)'", device: device)
            }
            try Alsa.check(snd_pcm_prepare(handle), "cannot prepare ALSA PCM '\(device)'", device: device)
        }
    }

    /// How long a transfer waits for the device at once, holding the lock (see `init`).
    static let waitMilliseconds: Int32 = 20

    /// Discards queued frames at once and leaves the PCM ready for more (not paused); a `write` or `read` in
    /// progress on another thread returns early.
    public func drop() throws {
        try state.withLock { state in
            let handle = try open(state)
            try stopAndPrepare(handle)
            state.pause = .none
            state.dropGeneration += 1
        }
    }

    /// Closes the PCM, discarding queued frames; idempotent. Later calls throw `closed`.
    public func close() {
        state.withLock { state in
            if let handle = state.handle { snd_pcm_close(handle) }
            state.handle = nil
        }
    }

    // MARK: - Private

    private enum Step {
        case moved(Int)
        case paused
        case dropped
    }

    /// Moves `total` frames one period at a time with `move(handle, framesDone, count)` (snd_pcm_writei or
    /// snd_pcm_readi), taking the lock for each period only.
    private func transfer(
        frames total: Int,
        _ move: (OpaquePointer, Int, Int) -> snd_pcm_sframes_t
    ) throws -> Int {
        let generation = state.withLock { $0.dropGeneration }
        var done = 0
        while done < total {
            let step: Step = try state.withLock { state in
                let handle = try open(state)
                if state.dropGeneration != generation { return .dropped }
                if state.pause != .none { return .paused }
                let result = move(handle, done, min(total - done, periodFrames))
                if result >= 0 { return .moved(Int(result)) }
                let error = Int32(result)
                if error == -EAGAIN {
                    _ = snd_pcm_wait(handle, Self.waitMilliseconds)
                    return .moved(0)
                }
                if error == -EPIPE {
                    if direction == .playback { state.underruns += 1 } else { state.overruns += 1 }
                }
                try Alsa.check(
                    snd_pcm_recover(handle, error, 1),
                    "\(direction == .playback ? "writing to" : "reading from") ALSA PCM '\(device)' failed "
                        + "(\(Alsa.text(error))) and could not recover",
                    device: device
                )
                return .moved(0)
            }
            switch step {
            case .moved(let count): done += count
            case .paused: usleep(5_000)
            case .dropped: return done
            }
        }
        return done
    }

    private func open(_ state: State) throws -> OpaquePointer {
        guard let handle = state.handle else {
            throw AlsaError(code: .closed, message: "ALSA PCM '\(device)' was closed", device: device)
        }
        return handle
    }

    private func wholeFrames(_ byteCount: Int) throws -> Int {
        guard byteCount % format.bytesPerFrame == 0 else {
            throw AlsaError(
                code: .invalidArgument,
                message: "\(byteCount) bytes are not whole frames of \(format) (\(format.bytesPerFrame) bytes each) "
                    + "for ALSA PCM '\(device)'",
                device: device
            )
        }
        return byteCount / format.bytesPerFrame
    }

    private func stopAndPrepare(_ handle: OpaquePointer) throws {
        try Alsa.check(snd_pcm_drop(handle), "cannot stop ALSA PCM '\(device)'", device: device)
        try Alsa.check(snd_pcm_prepare(handle), "cannot prepare ALSA PCM '\(device)'", device: device)
    }

    private static func canPause(_ handle: OpaquePointer) -> Bool {
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) >= 0, let params else { return false }
        defer { snd_pcm_hw_params_free(params) }
        guard snd_pcm_hw_params_current(handle, params) >= 0 else { return false }
        return snd_pcm_hw_params_can_pause(params) == 1
    }
}

extension PCMFormat.SampleFormat {
    /// The ALSA sample format.
    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .u8: SND_PCM_FORMAT_U8
        case .s16le: SND_PCM_FORMAT_S16_LE
        case .s24le: SND_PCM_FORMAT_S24_3LE
        case .s32le: SND_PCM_FORMAT_S32_LE
        case .float32le: SND_PCM_FORMAT_FLOAT_LE
        }
    }
}

extension AlsaPCM {
    /// `snd_pcm_open`, its failure as an `AlsaError` naming the device; the caller closes the handle.
    static func openHandle(device: String, direction: Direction) throws -> OpaquePointer {
        var opened: OpaquePointer?
        let stream = direction == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE
        try Alsa.check(
            snd_pcm_open(&opened, device, stream, 0),
            "cannot open ALSA PCM '\(device)' for \(direction.rawValue)",
            device: device
        )
        guard let handle = opened else {
            throw AlsaError(code: .io, message: "snd_pcm_open gave no PCM for '\(device)'", device: device)
        }
        return handle
    }
}
