internal import CPulse

/// One `pa_context` on its own threaded mainloop: connection state, the event subscription, and the operations in
/// flight.
///
/// Every stored `var` is read and written only with the mainloop lock held (libpulse callbacks run with it held;
/// Swift callers enter through `mainloop.withLock`), so that lock is this class's lock: hence `@unchecked Sendable`.
///
/// Ownership: `init` hands libpulse one retain of `self` as the `userdata` of the context's state and subscribe
/// callbacks; `close()` clears both callbacks and then releases that retain, once.
final class ContextCore: @unchecked Sendable {
    private enum Phase {
        case created
        case connecting(CheckedContinuation<Void, any Error>)
        case ready
        case failed(PulseError)
        case closed
    }

    let mainloop: ThreadedMainloop
    private let events: EventBroadcaster
    private var context: OpaquePointer?
    private var phase = Phase.created
    private var pending: [ObjectIdentifier: any PendingOperation] = [:]
    private var callbackRetain: Unmanaged<ContextCore>?
    /// How many requests were issued through `perform` and `performAll`, and how many of them are answered (or
    /// failed): a prefetched info is current while no request came after it and none was unanswered when it was
    /// asked for (`PulsePrefetch`).
    var requestsIssued: UInt64 = 0
    var requestsAnswered: UInt64 = 0
    /// The streams written to, for a stream's prefetched info (which only that stream's writes can make stale):
    /// the `requestsIssued` of the last batch that wrote to each, and how many batches that wrote to it are
    /// unanswered. A stream's last write is forgotten with its removal; its unanswered count, once none is left.
    var lastWrite: [WrittenStream: UInt64] = [:]
    var unansweredWrites: [WrittenStream: Int] = [:]
    /// Whether a new stream's info is asked for as its event is read
    /// (`PulseConnection.listen(prefetchingNewStreams:_:)`).
    var prefetchesNewStreams = false
    /// Whether a stream's or device's change is asked about too, as it is read (`prefetchingChanges`).
    var prefetchesChanges = false
    /// Whether the server answered a read of module-stream-restore's entries with "no such extension" and has
    /// loaded no module since: a new playback stream's info is then asked for alone (`PrefetchBox.ask`), as
    /// the read would fail again, a request and an answer more for every new stream on such a server.
    var streamRestoreMissing = false
    /// How many such reads were sent with a new stream's query (the tests count them).
    var restoreReadsSent: UInt64 = 0
    /// Events read and not yet handed over, oldest first: while a new stream's info is on its way, the events
    /// after it wait behind it, so that every subscriber sees them in the order they were read.
    var waitingEvents: [WaitingEvent] = []
    /// The properties an app's stream or client info keeps (`PulseConnection.init`); nil: all.
    let appPropertyKeys: Proplist.Keys?
    /// Runs jobs and timers on the mainloop; its timers run on this context's clock.
    private let executor: PulseLoopExecutor

    /// Starts a mainloop thread (which runs `executor`'s jobs) and creates an unconnected context named
    /// `applicationName`.
    init(
        applicationName: String,
        properties: [String: String],
        appPropertyKeys: [String]? = nil,
        events: EventBroadcaster,
        executor: PulseLoopExecutor
    ) throws(PulseError) {
        self.events = events
        self.executor = executor
        self.appPropertyKeys = appPropertyKeys.map(Proplist.Keys.init)
        mainloop = try ThreadedMainloop(executor: executor)
        do {
            try mainloop.withLock("pa_context_new_with_proplist") { api throws(PulseError) in
                let list = try Proplist.make(properties, operation: "pa_context_new_with_proplist")
                defer { pa_proplist_free(list) }
                guard let context = pa_context_new_with_proplist(api, applicationName, list) else {
                    throw PulseError(code: .invalidArgument, operation: "pa_context_new_with_proplist")
                }
                let retained = Unmanaged.passRetained(self)
                callbackRetain = retained
                pa_context_set_state_callback(context, ContextCore.stateThunk, retained.toOpaque())
                pa_context_set_subscribe_callback(context, ContextCore.subscribeThunk, retained.toOpaque())
                self.context = context
                executor.timerContext = context
            }
        } catch {
            mainloop.shutDown()
            throw error
        }
    }

    // MARK: Connecting

    /// Connects to `server` (nil: libpulse's default) without autospawning; returns once the context is ready.
    func connect(server: String?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                try mainloop.withLock("pa_context_connect") { _ throws(PulseError) in
                    guard case .created = phase, let context else {
                        throw PulseError(code: .badState, operation: "connect", message: "connect() may be called once")
                    }
                    phase = .connecting(continuation)
                    // A failure may already have been reported through the state callback, which resumed.
                    if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                        lose(PulseError.last(of: context, operation: "pa_context_connect"))
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    private static let stateThunk: pa_context_notify_cb_t = { context, userdata in
        Unmanaged<ContextCore>.fromOpaque(userdata!).takeUnretainedValue().stateChanged(context)
    }

    private func stateChanged(_ context: OpaquePointer?) {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            guard case .connecting(let continuation) = phase else { return }
            phase = .ready
            continuation.resume()
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            lose(PulseError.last(of: context, operation: "pa_context_connect"))
        default:
            break
        }
    }

    /// The connection failed or ended: fail the waiting `connect()` and every pending operation, end the events.
    private func lose(_ error: PulseError) {
        switch phase {
        case .connecting(let continuation):
            phase = .failed(error)
            continuation.resume(throwing: error)
        case .ready:
            phase = .failed(error)
        case .created, .failed, .closed:
            return
        }
        failPending { name in
            PulseError(code: error.code, operation: name, message: "connection lost: \(error.message)")
        }
        events.finish(with: .disconnected(reason: error.message))
    }

    // MARK: Events

    private static let subscribeThunk: pa_context_subscribe_cb_t = { _, type, index, userdata in
        let core = Unmanaged<ContextCore>.fromOpaque(userdata!).takeUnretainedValue()
        guard let event = PulseEvent(type, index: index) else { return }
        if case .changed(let facility, .remove, let index) = event, let stream = WrittenStream(facility, index) {
            core.lastWrite[stream] = nil
        }
        // The module loaded may be module-stream-restore: the next new stream asks again.
        if case .changed(.module, .new, _) = event { core.streamRestoreMissing = false }
        core.read(event)
    }

    /// Hands `event` over, or, when a new stream's info is asked for first or events wait, queues it. The lock
    /// held (libpulse's thread).
    private func read(_ event: PulseEvent) {
        if let context, prefetchesNewStreams,
            let prefetch = PrefetchBox.ask(for: event, context: context, core: self, changes: prefetchesChanges)
        {
            waitingEvents.append(WaitingEvent(event: event, prefetch: prefetch))
        } else if waitingEvents.isEmpty {
            events.yield(event)
        } else {
            waitingEvents.append(WaitingEvent(event: event, prefetch: nil))
        }
    }

    /// Hands over the waiting events up to the first whose info is still on its way. The lock held.
    func handOverWaitingEvents() {
        while let first = waitingEvents.first, first.prefetch?.isAnswered ?? true {
            waitingEvents.removeFirst()
            events.yield(first.event, prefetched: first.prefetch?.answer)
        }
    }

    // MARK: Operations

    /// Issues one request and awaits its answer.
    ///
    /// `issue` runs with the lock held and must call libpulse with the given `userdata` and a thunk that completes
    /// the `OperationBox<Value>` behind it; it returns the `pa_operation`, or nil when libpulse refused the call.
    /// If `issue` throws, that error is the answer. `owner` names a stream whose teardown cancels the operation
    /// (see `failPending(owner:)`). Not cancellable: libpulse answers or times out (30 s); `close()` fails it at once.
    func perform<Value: Sendable>(
        _ name: String,
        owner: ObjectIdentifier? = nil,
        _ issue: (_ context: OpaquePointer, _ userdata: UnsafeMutableRawPointer) throws(PulseError) -> OpaquePointer?
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            do {
                try mainloop.withLock(name) { _ throws(PulseError) in
                    let context = try readyContext(name)
                    requestsIssued &+= 1
                    let box = OperationBox(name: name, owner: owner, core: self, continuation: continuation)
                    pending[ObjectIdentifier(box)] = box
                    do throws(PulseError) {
                        guard let operation = try issue(context, box.userdata) else {
                            return box.failWithContextError(context)
                        }
                        pa_operation_unref(operation)
                    } catch {
                        box.fail(error)
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The connected context, or why there is none. Only with the lock held.
    func readyContext(_ operation: String) throws(PulseError) -> OpaquePointer {
        switch phase {
        case .ready:
            return context!
        case .created, .connecting:
            throw PulseError(code: .badState, operation: operation, message: "not connected: call connect() first")
        case .failed(let error):
            throw PulseError(code: error.code, operation: operation, message: "not connected: \(error.message)")
        case .closed:
            throw PulseError.closed(operation)
        }
    }

    /// Keeps an operation until it completes, so that a connection loss fails it. Only with the lock held.
    func register(_ operation: any PendingOperation) {
        pending[ObjectIdentifier(operation)] = operation
    }

    /// Drops a completed operation. Only with the lock held.
    func forget(_ operation: any PendingOperation) {
        pending[ObjectIdentifier(operation)] = nil
    }

    /// Drops a request issued through `perform` or `performAll` (counted in `requestsIssued`) once it is answered
    /// or failed. Only with the lock held.
    func answered(_ request: any PendingOperation) {
        forget(request)
        requestsAnswered &+= 1
    }

    /// Notes a batch of writes to `streams` as issued, numbered `requestsIssued`. Only with the lock held.
    func writesIssued(to streams: Set<WrittenStream>) {
        for stream in streams {
            lastWrite[stream] = requestsIssued
            unansweredWrites[stream, default: 0] += 1
        }
    }

    /// Notes a batch of writes to `streams` as answered (or failed). Only with the lock held.
    func writesAnswered(to streams: Set<WrittenStream>) {
        for stream in streams {
            let left = (unansweredWrites[stream] ?? 1) - 1
            unansweredWrites[stream] = left > 0 ? left : nil
        }
    }

    /// Fails the pending operations of `owner` (all when nil). Only with the lock held.
    func failPending(owner: ObjectIdentifier? = nil, _ error: (_ name: String) -> PulseError) {
        for operation in pending.values where owner == nil || operation.owner == owner {
            operation.fail(error(operation.name))
        }
    }

    // MARK: Closing

    /// Fails everything pending, disconnects and frees the context, stops the mainloop. Idempotent.
    func close() {
        try? mainloop.withLock("close") { _ in
            if case .connecting(let continuation) = phase {
                continuation.resume(throwing: PulseError.closed("pa_context_connect"))
            }
            phase = .closed
            failPending { PulseError.closed($0) }
            if let context {
                executor.timerContext = nil
                pa_context_set_state_callback(context, nil, nil)
                pa_context_set_subscribe_callback(context, nil, nil)
                pa_context_disconnect(context)
                pa_context_unref(context)
                self.context = nil
            }
            // The caller holds `self`, so this cannot free it here.
            callbackRetain?.release()
            callbackRetain = nil
        }
        mainloop.shutDown()
    }
}
