import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The connection thread's side of a session: the socket, request ids, replies, events and reconnection. It
/// lives on that thread alone (no lock around its own fields); what callers read is in `session.state`.
final class ConnectionWorker {
    let session: AudioSession
    private var socket: LineSocket?
    private var nextID = 1
    /// Replies read by a request that was not theirs (a call made from inside a callback), by id.
    private var strayReplies: [Int: Reply] = [:]
    /// A connection finished its handshake: losing it is `mediaServicesWereLost`.
    private var isEstablished = false
    /// A connection was lost: the next handshake is followed by `mediaServicesWereReset`.
    private var wasLost = false
    /// The daemon said its sound server is back; streams are restarted outside whatever request read it.
    private var daemonReset: String?
    private var backoff = ConnectionWorker.firstBackoff
    private var nextAttempt = ContinuousClock.now
    /// The daemon refused the session for good (`hello` with `call: true` from a user it does not trust):
    /// every call throws this, and the library stops trying.
    private var refusal: AudioSessionError?

    static let firstBackoff = Duration.milliseconds(50)
    static let longestBackoff = Duration.seconds(1)
    static let replyTimeout = Duration.seconds(10)

    init(session: AudioSession) { self.session = session }

    // MARK: The loop

    func run() {
        while !session.jobs.withLock({ $0.isClosed }) {
            if socket == nil && refusal == nil && ContinuousClock.now >= nextAttempt { connect() }
            runJobs()
            if let because = daemonReset {
                daemonReset = nil
                restartStreams()
                session.notificationHub.send(.mediaServicesWereReset(MediaServicesNotification(because: because)))
            }
            handleBufferedLines()
            waitForInput()
        }
        shutdown()
    }

    private func runJobs() {
        while true {
            let jobs = session.jobs.withLock { queue in
                defer { queue.pending.removeAll() }
                return queue.pending
            }
            if jobs.isEmpty { return }
            for job in jobs { job(self) }
        }
    }

    private func waitForInput() {
        var descriptors = [pollfd(fd: session.wake.readEnd, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)) }
        var timeout: Int32 = -1
        if socket == nil && refusal == nil {
            let remaining = nextAttempt - ContinuousClock.now
            timeout = Int32(max(0, (remaining / .milliseconds(1)).rounded(.up)))
        }
        guard poll(&descriptors, nfds_t(descriptors.count), timeout) > 0 else { return }
        if descriptors[0].revents != 0 { session.wake.drain() }
        if let socket, descriptors.count > 1, descriptors[1].revents != 0 {
            do {
                try socket.fill()
                handleBufferedLines()
            } catch {
                dropped("audiosessiond at \(session.socketPath) closed the connection")
            }
        }
    }

    private func handleBufferedLines() {
        while let line = socket?.bufferedLine() {
            switch try? LineCoding.decodeServerMessage(line) {
            case .event(let event)?: handle(event)
            case .reply(let reply)?: if case .number(let id)? = reply.id { strayReplies[id] = reply }
            case nil: continue
            }
        }
    }

    private func shutdown() {
        socket?.close()
        socket = nil
        let jobs = session.jobs.withLock { queue in
            defer { queue.pending.removeAll() }
            return queue.pending
        }
        for job in jobs { job(nil) }
        session.finishEverything()
        session.wake.close()
    }

    // MARK: Connecting

    /// One attempt; on failure the next waits for the backoff (50 ms doubling to 1 s).
    private func connect() {
        guard refusal == nil else { return }
        do throws(AudioSessionError) {
            do {
                socket = try LineSocket(path: session.socketPath)
            } catch {
                throw .daemonUnavailable(session.socketPath, error.reason)
            }
            try handshake()
        } catch {
            socket?.close()
            socket = nil
            if error.code == .notPermitted {
                refusal = error
                return
            }
            nextAttempt = ContinuousClock.now + backoff
            backoff = min(backoff * 2, Self.longestBackoff)
            return
        }
        isEstablished = true
        backoff = Self.firstBackoff
        if wasLost {
            wasLost = false
            let because = "audiosessiond at \(session.socketPath) is back; the session was restored"
            session.notificationHub.send(.mediaServicesWereReset(MediaServicesNotification(because: because)))
        }
    }

    /// `hello`, the category the app set, `subscribe`, activation if it was active, its running streams.
    private func handshake() throws(AudioSessionError) {
        let reply = try exchange(Request(.hello(app: session.appName, call: session.isCall ? true : nil)))
        if let error = reply.error { throw AudioSessionError(error) }
        keepState(reply)
        session.state.withLock { $0.soundServer = reply.result?.soundServer }
        let wanted = session.state.withLock { ($0.category, $0.mode, $0.options, $0.wantsActive) }
        if wanted.0 != .soloAmbient || wanted.1 != .default || !wanted.2.isEmpty {
            keepState(try exchange(Request(.setCategory(wanted.0, mode: wanted.1, options: wanted.2))))
        }
        keepState(try exchange(Request(.subscribe)))
        if wanted.3 {
            // A refused activation (a call is active) leaves the session inactive: the reset tells the app to look.
            let activation = try exchange(Request(.activate))
            keepState(activation)
            if activation.error != nil { session.state.withLock { $0.wantsActive = false } }
        }
        try restartStreamsOrThrow()
    }

    private func restartStreams() { try? restartStreamsOrThrow() }

    private func restartStreamsOrThrow() throws(AudioSessionError) {
        let streams = session.state.withLock { $0.streams.values.sorted { $0.number < $1.number } }
        for stream in streams where stream.wantsRunning {
            keepState(try exchange(Request(.startStream(stream.number, direction: stream.direction))))
            stream.isKnownToDaemon = true
        }
    }

    /// The connection is gone: tell the app once, forget what the daemon knew, and retry soon.
    private func dropped(_ because: String) {
        socket?.close()
        socket = nil
        strayReplies.removeAll()
        let streams = session.state.withLock { state in
            state.snapshot?.state = .inactive
            return Array(state.streams.values)
        }
        for stream in streams { stream.isKnownToDaemon = false }
        backoff = Self.firstBackoff
        nextAttempt = ContinuousClock.now + backoff
        guard isEstablished else { return }
        isEstablished = false
        wasLost = true
        session.notificationHub.send(.mediaServicesWereLost(MediaServicesNotification(because: because)))
    }

    /// Connects now if not connected (an app's request does not wait for the backoff); false when it cannot.
    private func ensureConnected() -> Bool {
        if socket == nil { connect() }
        return socket != nil
    }

    private var unavailable: AudioSessionError {
        if let refusal { return refusal }
        return .daemonUnavailable(session.socketPath, "not connected")
    }

    // MARK: Requests

    /// Sends `request` and returns its reply; events read meanwhile are handled first, as they arrived.
    private func exchange(_ request: Request) throws(AudioSessionError) -> Reply {
        guard let socket else { throw unavailable }
        let id = nextID
        nextID += 1
        var request = request
        request.id = .number(id)
        do {
            try socket.send(line: LineCoding.encode(request))
        } catch {
            dropped("audiosessiond at \(session.socketPath) closed the connection")
            throw .daemonUnavailable(session.socketPath, "the connection closed")
        }
        let deadline = ContinuousClock.now + Self.replyTimeout
        while true {
            if let reply = strayReplies.removeValue(forKey: id) { return reply }
            while let line = socket.bufferedLine() {
                guard let message = try? LineCoding.decodeServerMessage(line) else { continue }
                switch message {
                case .event(let event): handle(event)
                case .reply(let reply) where reply.id == .number(id): return reply
                case .reply(let reply): if case .number(let other)? = reply.id { strayReplies[other] = reply }
                }
                if let reply = strayReplies.removeValue(forKey: id) { return reply }
            }
            // A nested call (from an `onVerdict` callback) may have dropped this connection and made another,
            // which can reuse the descriptor number: this request's reply will never come on that one.
            guard self.socket === socket else {
                throw .daemonUnavailable(session.socketPath, "the connection was replaced before the reply")
            }
            // The wake pipe too: `close()` must not wait for a daemon that does not answer.
            var descriptors = [
                pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: session.wake.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let remaining = Int32(max(0, ((deadline - ContinuousClock.now) / .milliseconds(1)).rounded(.up)))
            guard poll(&descriptors, 2, remaining) > 0 else {
                dropped("audiosessiond at \(session.socketPath) stopped answering")
                throw .daemonUnavailable(session.socketPath, "no reply within \(Self.replyTimeout)")
            }
            if descriptors[1].revents != 0 {
                // Woken for a new job (run after this one) or for closing (this call gives up).
                session.wake.drain()
                if session.jobs.withLock({ $0.isClosed }) {
                    throw .daemonUnavailable(session.socketPath, "the session was closed before the reply")
                }
            }
            if descriptors[0].revents != 0 {
                do {
                    try socket.fill()
                } catch {
                    dropped("audiosessiond at \(session.socketPath) closed the connection")
                    throw .daemonUnavailable(session.socketPath, "the connection closed before the reply")
                }
            }
        }
    }

    /// The session as a reply reports it, failed or not.
    private func keepState(_ reply: Reply) {
        if let state = reply.result?.state { session.state.withLock { $0.snapshot = state } }
    }

    /// Sends a session request; keeps the state it reports, failed or not; throws its error.
    @discardableResult
    private func sessionRequest(_ request: Request) throws(AudioSessionError) -> Reply {
        let reply = try exchange(request)
        keepState(reply)
        if let error = reply.error { throw AudioSessionError(error) }
        return reply
    }

    func setCategory(_ category: Category, mode: Mode, options: CategoryOptions) throws(AudioSessionError) {
        guard ensureConnected() else {
            if let refusal { throw refusal }
            // Checked here as the daemon would, so that a category kept for later is one it will accept.
            if let option = options.firstIllegalOption(for: category) {
                throw AudioSessionError(
                    .badParam,
                    "option \(option) cannot be used with category \(category.rawValue) (C4)",
                    rule: "C4",
                    field: "options"
                )
            }
            if !mode.isLegal(with: category) {
                throw AudioSessionError(
                    .badParam,
                    "mode \(mode.rawValue) cannot be used with category \(category.rawValue) (C5)",
                    rule: "C5",
                    field: "mode"
                )
            }
            session.state.withLock { ($0.category, $0.mode, $0.options) = (category, mode, options) }
            return
        }
        try sessionRequest(Request(.setCategory(category, mode: mode, options: options)))
        session.state.withLock { ($0.category, $0.mode, $0.options) = (category, mode, options) }
    }

    func activate() throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        do throws(AudioSessionError) {
            try sessionRequest(Request(.activate))
        } catch {
            session.state.withLock { $0.wantsActive = $0.snapshot?.state == .active }
            throw error
        }
        session.state.withLock { $0.wantsActive = true }
    }

    func deactivate(notifyOthers: Bool) throws(AudioSessionError) {
        session.state.withLock { $0.wantsActive = false }
        guard ensureConnected() else {
            if let refusal { throw refusal }
            return
        }
        try sessionRequest(Request(.deactivate(notifyOthers: notifyOthers)))
    }

    func refreshState() throws(AudioSessionError) {
        guard socket != nil else { return }
        try sessionRequest(Request(.getState))
    }

    /// Connects now if it can; throws `daemonUnavailable` if it cannot.
    func connectNow() throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
    }

    func overrideOutput(_ port: String) throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        try sessionRequest(Request(.overrideOutput(port: port)))
    }

    func startStream(
        direction: StreamDirection,
        session owner: AudioSession,
        onVerdict: (@Sendable (StreamVerdictUpdate) -> Void)?
    ) throws(AudioSessionError) -> ReportedStream {
        guard ensureConnected() else { throw unavailable }
        // Registered before the request: its first verdict arrives before the reply.
        let stream = session.state.withLock { state in
            let stream = ReportedStream(
                number: state.nextStream,
                direction: direction,
                session: owner,
                onVerdict: onVerdict
            )
            state.nextStream += 1
            state.streams[stream.number] = stream
            return stream
        }
        do throws(AudioSessionError) {
            try sessionRequest(Request(.startStream(stream.number, direction: direction)))
        } catch {
            // A refused activation still records the stream (D5); the app has no handle, so it must go.
            if error.tookEffect {
                _ = try? exchange(Request(.removeStream(stream.number)))
            }
            session.state.withLock { _ = $0.streams.removeValue(forKey: stream.number) }
            stream.finish()
            throw error
        }
        return stream
    }

    func pause(_ stream: ReportedStream) throws(AudioSessionError) {
        stream.setRunning(false)
        guard stream.isKnownToDaemon, socket != nil else { return }
        try sessionRequest(Request(.pauseStream(stream.number)))
    }

    func resume(_ stream: ReportedStream) throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        stream.setRunning(true)
        stream.isKnownToDaemon = true
        try sessionRequest(Request(.startStream(stream.number, direction: stream.direction)))
    }

    func remove(_ stream: ReportedStream) throws(AudioSessionError) {
        session.state.withLock { _ = $0.streams.removeValue(forKey: stream.number) }
        defer { stream.finish() }
        guard stream.isKnownToDaemon, socket != nil else { return }
        try sessionRequest(Request(.removeStream(stream.number)))
    }

    // MARK: Events

    /// Keeps what an event changes, then tells the app.
    private func handle(_ event: Event) {
        switch event.event {
        case .streamVerdict:
            guard let number = event.stream, let update = StreamVerdictUpdate(event) else { return }
            session.state.withLock { $0.streams[number] }?.deliver(update)
            return
        case .interruption:
            session.state.withLock { state in
                state.snapshot?.state = event.type == "ended" ? .inactive : .interrupted
                state.wantsActive = false
            }
        case .routeChange:
            if let route = event.currentRoute { session.state.withLock { $0.snapshot?.currentRoute = route } }
        case .silenceSecondaryAudioHint:
            session.state.withLock { $0.snapshot?.secondaryAudioShouldBeSilencedHint = event.type != "end" }
        case .mediaServicesWereReset:
            // Every session is inactive and every stream gone (M1): start the running ones again, then tell.
            let streams = session.state.withLock { state in
                state.snapshot?.state = .inactive
                state.wantsActive = false
                return Array(state.streams.values)
            }
            for stream in streams { stream.isKnownToDaemon = false }
            daemonReset = event.because ?? "the sound server is back (M1)"
            return
        case .mediaServicesWereLost, .status:
            break
        }
        if let notification = AudioSessionNotification(event) { session.notificationHub.send(notification) }
    }
}
