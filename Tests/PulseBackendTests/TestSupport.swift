import AudioSessionTestSupport
import PulseBackend
import Locking

/// Records a connection's events from the moment it is made, for tests to wait on.
final class EventRecorder: Sendable {
    private final class Log: Sendable {
        let events = Locked<[PulseEvent]>([])
        let ended = Locked(false)
    }

    private let log = Log()
    private let task: Task<Void, Never>

    init(_ connection: PulseConnection) {
        let stream = connection.events
        task = Task { [log] in
            for await event in stream { log.events.withLock { $0.append(event) } }
            log.ended.withLock { $0 = true }
        }
    }

    deinit {
        task.cancel()
    }

    var events: [PulseEvent] { log.events.withLock { $0 } }
    var hasEnded: Bool { log.ended.withLock { $0 } }

    /// Waits until an event matching `predicate` has been recorded.
    @discardableResult
    func waitFor(
        _ what: String,
        timeout: Double = 10,
        _ predicate: @escaping @Sendable (PulseEvent) -> Bool
    ) async throws -> PulseEvent {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let event = events.first(where: predicate) { return event }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(what: "\(what); got \(events)")
    }

    /// Waits until the stream has ended.
    func waitForEnd(timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if hasEnded { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(what: "the end of the event stream")
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(
    _ what: String,
    timeout: Double = 10,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut(what: what)
}

/// A connected connection to `server`; the caller closes it.
func connected(
    to server: PrivatePulseServer,
    name: String = "pulse-backend-tests",
    appPropertyKeys: [String]? = nil
) async throws -> PulseConnection {
    let connection = PulseConnection(server: server.server, applicationName: name, appPropertyKeys: appPropertyKeys)
    try await connection.connect()
    return connection
}

/// The info that came with each new playback stream's event on `connection` (which then asks for it), by stream.
func newStreamsPrefetched(on connection: PulseConnection) -> Locked<[UInt32: PulsePrefetch]> {
    let prefetched = Locked<[UInt32: PulsePrefetch]>([:])
    connection.listen(prefetchingNewStreams: true) { event, prefetch in
        if case .changed(.sinkInput, .new, let index) = event, let prefetch {
            prefetched.withLock { $0[index] = prefetch }
        }
    }
    return prefetched
}

/// Saves, through `connection`, an entry for music streams (`media.role` music) at the norm volume divided by
/// `divisor` (2: half), unmuted, on no particular device; returns it.
func saveMusicEntry(on connection: PulseConnection, at divisor: UInt32) async throws -> PulseStreamRestoreEntry {
    let saved = PulseStreamRestoreEntry(
        key: "sink-input-by-media-role:music",
        volume: PulseVolume(uniform: PulseVolume.norm / divisor, channels: 2),
        muted: false,
        device: nil
    )
    try await connection.writeStreamRestoreEntry(saved)
    return saved
}
