internal import CPulse
import Locking

/// A libpulse client connection to a PulseAudio server (or PipeWire's PulseAudio server) on one threaded mainloop.
///
/// Every method is safe from any task. Requests never block the caller's thread beyond a brief lock; each one
/// resumes exactly once: with the answer, the server's error, or a `PulseError` when the connection is lost or
/// closed while it is pending.
public final class PulseConnection: Sendable {
    private enum Slot {
        case idle
        case open(ContextCore)
        case closed
    }

    private let server: String?
    private let applicationName: String
    private let properties: [String: String]
    private let appPropertyKeys: [String]?
    let broadcaster = EventBroadcaster()
    private let slot = Locked(Slot.idle)
    /// Runs a task's code on this connection's libpulse thread while it is connected (`PulseLoopExecutor`):
    /// `withTaskExecutorPreference(connection.executor) { ... }`. Before `connect()` and after `close()`, its jobs
    /// run on the global executor. A task on it closes the connection only once it has left it (closing stops
    /// the thread it would be running on).
    public let executor = PulseLoopExecutor()

    /// Prepares a connection; nothing happens until `connect()`.
    /// - Parameters:
    ///   - server: e.g. `"unix:/tmp/x/native"`, or nil for libpulse's default (`$PULSE_SERVER`, the user's server).
    ///   - applicationName: the client's `application.name`.
    ///   - properties: more client properties.
    ///   - appPropertyKeys: the properties an app's infos keep (its playback and record streams', its
    ///     clients'); nil: all of them. A client that reads a few of every stream's few dozen need not have
    ///     them all converted. A device's info keeps all of its properties.
    public init(
        server: String?,
        applicationName: String,
        properties: [String: String] = [:],
        appPropertyKeys: [String]? = nil
    ) {
        self.server = server
        self.applicationName = applicationName
        self.properties = properties
        self.appPropertyKeys = appPropertyKeys
    }

    deinit {
        close()
    }

    /// Connects (never autospawning a server) and subscribes to sink inputs, source outputs, sinks, sources, cards,
    /// clients, modules and the server. May be called once.
    /// - Throws: `PulseError` when the server cannot be reached or refuses the client.
    public func connect() async throws {
        try await connect(subscribing: true)
    }

    func connect(subscribing: Bool) async throws {
        let core = try slot.withLock { slot throws(PulseError) -> ContextCore in
            switch slot {
            case .idle:
                let core = try ContextCore(
                    applicationName: applicationName,
                    properties: properties,
                    appPropertyKeys: appPropertyKeys,
                    events: broadcaster,
                    executor: executor
                )
                slot = .open(core)
                return core
            case .open:
                throw PulseError(code: .badState, operation: "connect", message: "connect() may be called once")
            case .closed:
                throw PulseError.closed("connect")
            }
        }
        try await core.connect(server: server)
        guard subscribing else { return }
        let mask = PulseEvent.subscriptionMask
        try await core.perform("pa_context_subscribe") { context, userdata in
            pa_context_subscribe(context, mask, Thunk.success, userdata)
        } as Void
    }

    /// The server's events from now on, then `.disconnected(reason:)` if the connection is lost; the stream ends
    /// then or at `close()`. Each access returns a new stream, so subscribe before listing objects to miss nothing.
    public var events: AsyncStream<PulseEvent> {
        broadcaster.subscribe()
    }

    /// Calls `handler` with the server's events from now on, on libpulse's thread as each is read, then with
    /// `.disconnected(reason:)` if the connection is lost (not after `close()`). For a consumer with a queue of its
    /// own: it saves the hop through a task that `events` costs. Keep `handler` short; it holds up the connection.
    public func listen(_ handler: @escaping @Sendable (PulseEvent) -> Void) {
        broadcaster.listen { event, _ in handler(event) }
    }

    /// Fails pending requests, disconnects, frees the context and mainloop, ends `events`. Idempotent.
    public func close() {
        let core: ContextCore? = slot.withLock { slot in
            defer { slot = .closed }
            if case .open(let core) = slot { return core }
            return nil
        }
        core?.close()
        broadcaster.finish(with: nil)
    }

    /// The connection's context core, or the error for a call before `connect()` or after `close()`.
    func core(_ operation: String) throws(PulseError) -> ContextCore {
        try slot.withLock { slot throws(PulseError) -> ContextCore in
            switch slot {
            case .open(let core): return core
            case .idle:
                throw PulseError(code: .badState, operation: operation, message: "not connected: call connect() first")
            case .closed: throw PulseError.closed(operation)
            }
        }
    }

    /// Issues one request on the connection (see `ContextCore.perform`).
    func perform<Value: Sendable>(
        _ name: String,
        _ issue: (_ context: OpaquePointer, _ userdata: UnsafeMutableRawPointer) -> OpaquePointer?
    ) async throws -> Value {
        try await core(name).perform(name, issue)
    }
}
