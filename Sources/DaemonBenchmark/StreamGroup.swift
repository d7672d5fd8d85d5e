import CPulse

/// One client connection playing many streams, as one application would; PulseAudio takes at most 64 client
/// connections, so 100 streams cannot each have their own (as `PulsePlaybackStream` gives them). Each stream
/// is 44.1 kHz stereo with about 50 ms of buffering, fed silence. Calls block briefly (the classic threaded
/// mainloop pattern): setup only, never on a timed path.
final class StreamGroup: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private var streams: [OpaquePointer] = []
    private var closed = false

    init(server: String, application: String) throws {
        guard let mainloop = pa_threaded_mainloop_new() else { throw BenchError("pa_threaded_mainloop_new failed") }
        self.mainloop = mainloop
        var properties = pa_proplist_new()
        pa_proplist_sets(properties, "application.name", application)
        guard let context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), application, properties) else {
            pa_proplist_free(properties)
            pa_threaded_mainloop_free(mainloop)
            throw BenchError("pa_context_new failed")
        }
        pa_proplist_free(properties)
        properties = nil
        self.context = context
        let signal = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(context, { _, userdata in
            pa_threaded_mainloop_signal(StreamGroup.from(userdata).mainloop, 0)
        }, signal)
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard pa_threaded_mainloop_start(mainloop) >= 0, pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw BenchError("cannot connect to \(server)")
        }
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw BenchError("connection to \(server) failed: \(String(cString: pa_strerror(pa_context_errno(context))))")
            }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    deinit { close() }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> StreamGroup {
        Unmanaged<StreamGroup>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Opens one more playback stream with `properties`; returns its sink-input index once it is ready.
    func open(name: String, properties: [String: String]) throws -> UInt32 {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        let list = pa_proplist_new()
        defer { pa_proplist_free(list) }
        for (key, value) in properties { pa_proplist_sets(list, key, value) }
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: 44_100, channels: 2)
        guard let stream = pa_stream_new_with_proplist(context, name, &spec, nil, list) else {
            throw BenchError("pa_stream_new failed")
        }
        streams.append(stream)
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { _, userdata in
            pa_threaded_mainloop_signal(StreamGroup.from(userdata).mainloop, 0)
        }, me)
        pa_stream_set_write_callback(stream, { stream, bytes, _ in
            var buffer: UnsafeMutableRawPointer?
            var size = bytes
            guard pa_stream_begin_write(stream, &buffer, &size) == 0, let buffer else { return }
            buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            pa_stream_write(stream, buffer, size, nil, 0, PA_SEEK_RELATIVE)
        }, nil)
        let bytes50ms = UInt32(44_100 / 20 * 4)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: bytes50ms, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        guard pa_stream_connect_playback(stream, nil, &attributes, PA_STREAM_ADJUST_LATENCY, nil, nil) >= 0 else {
            throw BenchError("pa_stream_connect_playback failed")
        }
        while true {
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_READY { return pa_stream_get_index(stream) }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                throw BenchError("stream failed: \(String(cString: pa_strerror(pa_context_errno(context))))")
            }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    /// Ends every stream and the connection. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        pa_threaded_mainloop_lock(mainloop)
        for stream in streams {
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        streams.removeAll()
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }
}
