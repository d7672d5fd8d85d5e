internal import CPulse

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `pa_stream` (44.1 kHz stereo s16le) on a private connection, playing a quiet tone or discarding what it
/// records, from its callbacks on the mainloop thread.
///
/// Every stored `var` is read and written only with the connection's mainloop lock held, which is this class's
/// lock: hence `@unchecked Sendable`. Ownership: `open` hands libpulse one retain of `self` as the `userdata` of
/// the stream's state and data callbacks; `close()` clears those callbacks, then releases it, once.
final class StreamCore: @unchecked Sendable {
    enum Direction {
        case playback, record
    }

    static let sampleRate: UInt32 = 44_100
    private static let bytesPerFrame = 4
    private static let toneHertz = 440.0
    /// About -40 dBFS: audible on a real device, never loud.
    private static let toneAmplitude = 300.0

    /// The stream's connection, closed with the stream when `ownsConnection` (a private one).
    let connection: PulseConnection
    private let ownsConnection: Bool
    private let core: ContextCore
    let direction: Direction
    /// What a playback stream plays.
    let signal: PlaybackSignal
    /// Whether the stream refuses to be moved to another device (PA_STREAM_DONT_MOVE).
    private let pinned: Bool
    private var stream: OpaquePointer?
    private var opening: CheckedContinuation<UInt32, any Error>?
    private var tonePhase = 0.0
    private var callbackRetain: Unmanaged<StreamCore>?

    /// A stream on `connection`, which must be connected.
    init(
        connection: PulseConnection,
        direction: Direction,
        signal: PlaybackSignal = .quietTone,
        pinned: Bool = false,
        ownsConnection: Bool = true
    ) throws(PulseError) {
        self.connection = connection
        self.ownsConnection = ownsConnection
        self.pinned = pinned
        self.core = try connection.core("pa_stream_new_with_proplist")
        self.direction = direction
        self.signal = signal
    }

    private var operationName: String {
        direction == .playback ? "pa_stream_connect_playback" : "pa_stream_connect_record"
    }

    /// Creates and connects the stream; returns its sink-input or source-output index once it is ready.
    func open(name: String, properties: [String: String], device: String?) async throws -> UInt32 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UInt32, any Error>) in
            do {
                try core.mainloop.withLock(operationName) { _ throws(PulseError) in
                    let context = try core.readyContext("pa_stream_new_with_proplist")
                    try create(context: context, name: name, properties: properties)
                    opening = continuation
                    if connectStream(device: device) < 0 {
                        failOpening(PulseError.last(of: context, operation: operationName))
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    private func create(context: OpaquePointer, name: String, properties: [String: String]) throws(PulseError) {
        let list = try Proplist.make(properties, operation: "pa_stream_new_with_proplist")
        defer { pa_proplist_free(list) }
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: StreamCore.sampleRate, channels: 2)
        guard let stream = pa_stream_new_with_proplist(context, name, &spec, nil, list) else {
            throw PulseError.last(of: context, operation: "pa_stream_new_with_proplist")
        }
        let retained = Unmanaged.passRetained(self)
        callbackRetain = retained
        pa_stream_set_state_callback(stream, StreamCore.stateThunk, retained.toOpaque())
        switch direction {
        case .playback: pa_stream_set_write_callback(stream, StreamCore.writeThunk, retained.toOpaque())
        case .record: pa_stream_set_read_callback(stream, StreamCore.readThunk, retained.toOpaque())
        }
        self.stream = stream
    }

    /// Connects with about 50 ms of buffering, like an interactive application.
    private func connectStream(device: String?) -> Int32 {
        let bytes50ms = UInt32(StreamCore.sampleRate / 20) * UInt32(StreamCore.bytesPerFrame)
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max,
            tlength: direction == .playback ? bytes50ms : UInt32.max,
            prebuf: UInt32.max,
            minreq: UInt32.max,
            fragsize: direction == .record ? bytes50ms : UInt32.max
        )
        let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | (pinned ? PA_STREAM_DONT_MOVE.rawValue : 0))
        switch direction {
        case .playback:
            return pa_stream_connect_playback(stream, device, &attributes, flags, nil, nil)
        case .record:
            return pa_stream_connect_record(stream, device, &attributes, flags)
        }
    }

    private func failOpening(_ error: PulseError) {
        guard let continuation = opening else { return }
        opening = nil
        continuation.resume(throwing: error)
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> StreamCore {
        Unmanaged<StreamCore>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private static let stateThunk: pa_stream_notify_cb_t = { stream, userdata in
        from(userdata).stateChanged(stream)
    }

    private func stateChanged(_ stream: OpaquePointer?) {
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            guard let continuation = opening else { return }
            opening = nil
            continuation.resume(returning: pa_stream_get_index(stream))
        case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
            // libpulse cancels the stream's operations right after this callback: fail their callers first.
            let error = PulseError.last(of: pa_stream_get_context(stream), operation: operationName)
            failOpening(error)
            core.failPending(owner: ObjectIdentifier(self)) { name in
                PulseError(code: error.code, operation: name, message: "the stream ended: \(error.message)")
            }
        default:
            break
        }
    }

    private static let writeThunk: pa_stream_request_cb_t = { stream, bytes, userdata in
        from(userdata).writeTone(stream, bytes: bytes)
    }

    private func writeTone(_ stream: OpaquePointer?, bytes: Int) {
        var buffer: UnsafeMutableRawPointer?
        var size = bytes
        guard pa_stream_begin_write(stream, &buffer, &size) == 0, let buffer else { return }
        let frames = size / StreamCore.bytesPerFrame
        if signal == .silence {
            buffer.initializeMemory(as: UInt8.self, repeating: 0, count: frames * StreamCore.bytesPerFrame)
            pa_stream_write(stream, buffer, frames * StreamCore.bytesPerFrame, nil, 0, PA_SEEK_RELATIVE)
            return
        }
        let samples = buffer.bindMemory(to: Int16.self, capacity: frames * 2)
        let step = 2 * Double.pi * StreamCore.toneHertz / Double(StreamCore.sampleRate)
        let left: Double = signal == .quietToneRightOnly ? 0 : 1
        let right: Double = signal == .quietToneLeftOnly ? 0 : 1
        for frame in 0..<frames {
            let sample = sin(tonePhase) * StreamCore.toneAmplitude
            samples[2 * frame] = Int16(sample * left)
            samples[2 * frame + 1] = Int16(sample * right)
            tonePhase += step
            if tonePhase >= 2 * Double.pi { tonePhase -= 2 * Double.pi }
        }
        pa_stream_write(stream, buffer, frames * StreamCore.bytesPerFrame, nil, 0, PA_SEEK_RELATIVE)
    }

    private static let readThunk: pa_stream_request_cb_t = { stream, _, userdata in
        var data: UnsafeRawPointer?
        var size = 0
        while pa_stream_peek(stream, &data, &size) == 0, size > 0 {
            pa_stream_drop(stream)
        }
    }

    /// Pauses or resumes the stream from the application's side.
    func cork(_ corked: Bool) async throws {
        let name = "pa_stream_cork"
        try await core.perform(name, owner: ObjectIdentifier(self)) { _, userdata throws(PulseError) in
            guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else {
                throw PulseError(code: .badState, operation: name, message: "the stream is closed or has failed")
            }
            return pa_stream_cork(stream, corked ? 1 : 0, StreamCore.successThunk, userdata)
        } as Void
    }

    private static let successThunk: pa_stream_success_cb_t = { stream, success, userdata in
        let box = OperationBox<Void>.from(userdata)
        if success != 0 { box.succeed(()) } else { box.failWithContextError(pa_stream_get_context(stream)) }
    }

    /// Disconnects and frees the stream, then closes its connection. Idempotent.
    func close() {
        do {
            try core.mainloop.withLock("close") { _ in
                failOpening(PulseError.closed(operationName))
                core.failPending(owner: ObjectIdentifier(self)) { PulseError.closed($0) }
                if let stream {
                    pa_stream_set_state_callback(stream, nil, nil)
                    pa_stream_set_write_callback(stream, nil, nil)
                    pa_stream_set_read_callback(stream, nil, nil)
                    pa_stream_disconnect(stream)
                    pa_stream_unref(stream)
                    self.stream = nil
                }
                // The caller holds `self`, so this cannot free it here.
                callbackRetain?.release()
                callbackRetain = nil
            }
        } catch {
            // The connection was already closed; with it went the mainloop that ran the stream.
        }
        if ownsConnection { connection.close() }
    }
}
