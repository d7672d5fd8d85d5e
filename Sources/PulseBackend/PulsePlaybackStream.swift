/// What a playback stream plays: a quiet 440 Hz tone (about -40 dBFS) on both channels, or on one only (so that
/// a recording of the mix tells two streams apart by channel: the daemon benchmark's audible overlap), or
/// digital silence.
public enum PlaybackSignal: Sendable, Equatable {
    case quietTone
    case quietToneLeftOnly
    case quietToneRightOnly
    case silence
}

/// A real playback stream, as an application would open one: 44.1 kHz stereo, playing a quiet 440 Hz tone
/// (about -40 dBFS) until closed. For tests, live scenario replays and the daemon benchmark.
public final class PulsePlaybackStream: Sendable {
    /// The stream's index as the server's sink input.
    public let sinkInputIndex: UInt32
    let core: StreamCore

    private init(core: StreamCore, index: UInt32) {
        self.core = core
        self.sinkInputIndex = index
    }

    deinit {
        core.close()
    }

    /// Connects a client of its own named `name` and opens a playback stream.
    /// - Parameters:
    ///   - server: e.g. `"unix:/tmp/x/native"`, or nil for libpulse's default.
    ///   - name: the stream's and client's name.
    ///   - properties: stream properties, e.g. `["media.role": "music", "audiosession.id": "7"]`.
    ///   - sink: the name of the sink to play to, or nil for the server's choice.
    ///   - signal: what it plays, by default the tone on both channels.
    ///   - pinned: the stream stays on `sink`: the server refuses to move it (PA_STREAM_DONT_MOVE), to a
    ///     policy's output route among others.
    public static func open(
        server: String?,
        name: String,
        properties: [String: String],
        sink: String? = nil,
        signal: PlaybackSignal = .quietTone,
        pinned: Bool = false
    ) async throws -> PulsePlaybackStream {
        let (core, index) = try await StreamCore.openOnOwnConnection(
            server: server,
            name: name,
            properties: properties,
            device: sink,
            direction: .playback,
            signal: signal,
            pinned: pinned
        )
        return PulsePlaybackStream(core: core, index: index)
    }

    /// Pauses (`true`) or resumes (`false`) the stream from the application's side.
    public func cork(_ corked: Bool) async throws {
        try await core.cork(corked)
    }

    /// Ends the stream and its connection. Idempotent.
    public func close() {
        core.close()
    }
}

/// A real record stream, as an application would open one: 44.1 kHz stereo, reading and discarding until closed.
public final class PulseRecordStream: Sendable {
    /// The stream's index as the server's source output.
    public let sourceOutputIndex: UInt32
    let core: StreamCore

    private init(core: StreamCore, index: UInt32) {
        self.core = core
        self.sourceOutputIndex = index
    }

    deinit {
        core.close()
    }

    /// Connects a client of its own named `name` and opens a record stream.
    /// - Parameters:
    ///   - server: e.g. `"unix:/tmp/x/native"`, or nil for libpulse's default.
    ///   - name: the stream's and client's name.
    ///   - properties: stream properties, e.g. `["media.role": "phone"]`.
    ///   - source: the name of the source to record from, or nil for the server's choice.
    public static func open(
        server: String?,
        name: String,
        properties: [String: String],
        source: String? = nil
    ) async throws -> PulseRecordStream {
        let (core, index) = try await StreamCore.openOnOwnConnection(
            server: server,
            name: name,
            properties: properties,
            device: source,
            direction: .record
        )
        return PulseRecordStream(core: core, index: index)
    }

    /// Pauses (`true`) or resumes (`false`) the stream from the application's side.
    public func cork(_ corked: Bool) async throws {
        try await core.cork(corked)
    }

    /// Ends the stream and its connection. Idempotent.
    public func close() {
        core.close()
    }
}

extension StreamCore {
    /// Connects a private client and opens a stream on it; on failure nothing is left open.
    static func openOnOwnConnection(
        server: String?,
        name: String,
        properties: [String: String],
        device: String?,
        direction: Direction,
        signal: PlaybackSignal = .quietTone,
        pinned: Bool = false
    ) async throws -> (StreamCore, UInt32) {
        let connection = PulseConnection(server: server, applicationName: name)
        do {
            try await connection.connect(subscribing: false)
        } catch {
            connection.close()
            throw error
        }
        let core: StreamCore
        do {
            core = try StreamCore(connection: connection, direction: direction, signal: signal, pinned: pinned)
        } catch {
            connection.close()
            throw error
        }
        do {
            return (core, try await core.open(name: name, properties: properties, device: device))
        } catch {
            core.close()
            throw error
        }
    }
}
