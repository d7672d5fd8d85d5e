import Locking

/// Many playback streams on one client connection, as one application plays them: PulseAudio takes at most 64
/// client connections (protocol-native's limit), so 100 streams cannot each have their own as
/// `PulsePlaybackStream` gives them. Each stream is 44.1 kHz stereo with about 50 ms of buffering.
public final class PulsePlaybackGroup: Sendable {
    private let connection: PulseConnection
    private let streams = Locked<[StreamCore]>([])

    private init(connection: PulseConnection) {
        self.connection = connection
    }

    deinit {
        close()
    }

    /// Connects a client named `application` (its `application.name`).
    /// - Parameter server: e.g. `"unix:/tmp/x/native"`, or nil for libpulse's default.
    public static func connect(server: String?, application: String) async throws -> PulsePlaybackGroup {
        let connection = PulseConnection(server: server, applicationName: application)
        do {
            try await connection.connect(subscribing: false)
        } catch {
            connection.close()
            throw error
        }
        return PulsePlaybackGroup(connection: connection)
    }

    /// Opens one more playback stream named `name` with `properties`, playing `signal`; returns its sink-input
    /// index once it is ready.
    public func open(name: String, properties: [String: String], signal: PlaybackSignal = .silence) async throws -> UInt32 {
        let core = try StreamCore(connection: connection, direction: .playback, signal: signal, ownsConnection: false)
        streams.withLock { $0.append(core) }
        return try await core.open(name: name, properties: properties, device: nil)
    }

    /// Ends every stream, then the connection. Idempotent.
    public func close() {
        for core in streams.withLock({ streams in defer { streams.removeAll() }; return streams }) { core.close() }
        connection.close()
    }
}
