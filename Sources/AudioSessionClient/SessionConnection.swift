import AudioSessionPolicy
import AudioSessionProtocol
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Everything a session keeps about its connection: the socket, request ids, replies, reconnection, the streams
/// and what the app asked for. It has one owner, the session's `owner` lock: whoever holds it (a caller running
/// its own call, or the listener thread) works here alone, and no field has a lock of its own. What callers may
/// read without the lock is published to `session.published` by the holder.
final class SessionConnection {
    let socketPath: String
    let appName: String
    let isCall: Bool
    let published: Locked<PublishedState>
    let notificationHub: Broadcaster<AudioSessionNotification>
    let wakeups: Wakeups

    /// The connection; every change rings the listener's doorbell, since the descriptor it polls is then stale.
    private(set) var socket: LineSocket? {
        didSet { if oldValue !== socket { wakeups.ring() } }
    }
    private var nextID = 1
    /// Replies read by a request that was not theirs (a call made from inside a callback), by id.
    private var strayReplies: [Int: Reply] = [:]
    /// A connection finished its handshake: losing it is `mediaServicesWereLost`.
    private var isEstablished = false
    /// A connection was lost: the next handshake is followed by `mediaServicesWereReset`.
    private var wasLost = false
    /// The daemon said its sound server is back; streams are restarted outside whatever request read it.
    private var daemonReset: String?
    private var backoff = SessionConnection.firstBackoff
    private var nextAttempt = ContinuousClock.now
    /// The daemon refused the session for good (`hello` with `call: true` from a user it does not trust):
    /// every call throws this, and the library stops trying.
    private(set) var refusal: AudioSessionError?
    /// The app asked to be active and has not been deactivated or interrupted since: restored on reconnect.
    var wantsActive = false
    /// The app's reported streams by number, and those of them the daemon knows now (not after a restart until
    /// they are started again).
    var streams: [Int: ReportedStream] = [:]
    var streamsKnownToDaemon: Set<Int> = []
    var nextStream = 1
    /// The listener thread was started (on first use).
    var listenerStarted = false
    /// The listener thread's kernel id, once it runs: for a look at its CPU time (`/proc/self/task/ID/stat`).
    var listenerThreadID: Int32?
    /// `shutDown()` has run: the session is closed for good.
    private(set) var isShutDown = false

    static let firstBackoff = Duration.milliseconds(50)
    static let longestBackoff = Duration.seconds(1)
    static let replyTimeout = Duration.seconds(10)

    init(
        socketPath: String,
        appName: String,
        isCall: Bool,
        published: Locked<PublishedState>,
        notificationHub: Broadcaster<AudioSessionNotification>,
        wakeups: Wakeups
    ) {
        self.socketPath = socketPath
        self.appName = appName
        self.isCall = isCall
        self.published = published
        self.notificationHub = notificationHub
        self.wakeups = wakeups
    }

    // MARK: What the listener waits for

    /// What the listener polls until the owner has work again: the socket if connected; otherwise the time of
    /// the next connection attempt (none once refused or closed).
    var watch: ListenerWatch {
        if let socket { return ListenerWatch(socket: socket.descriptor, timeout: -1) }
        guard refusal == nil, !isShutDown else { return ListenerWatch(socket: nil, timeout: -1) }
        let remaining = nextAttempt - ContinuousClock.now
        return ListenerWatch(socket: nil, timeout: Int32(max(0, (remaining / .milliseconds(1)).rounded(.up))))
    }

    /// Reads what the daemon sent, if anything is there now: the listener's poll ran without the lock, and a
    /// caller may have read it meanwhile, so this looks again rather than trust it (a read would then block).
    func readWhatArrived() {
        guard let socket else { return }
        var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return }
        do {
            try socket.fill()
        } catch {
            dropped("audiosessiond at \(socketPath) closed the connection")
        }
    }

    /// What is due once the owner's work is done, before the lock is given up: the events already read, and
    /// the streams to restart after the daemon's reset (outside the request that read it).
    /// Nothing once closing: a restart would fail at once, and its notification would be a last, false word.
    func finishWork() {
        guard !isShutDown, !wakeups.isClosing else { return }
        handleBufferedLines()
        while let because = daemonReset, !isShutDown, !wakeups.isClosing {
            daemonReset = nil
            restartStreams()
            notificationHub.send(.mediaServicesWereReset(MediaServicesNotification(because: because)))
            handleBufferedLines()
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

    /// Closes the connection and ends every sequence; the last thing a session does. Later calls do nothing.
    func shutDown() {
        guard !isShutDown else { return }
        isShutDown = true
        socket?.close()
        socket = nil
        let ended = streams.values
        streams.removeAll()
        streamsKnownToDaemon.removeAll()
        for stream in ended { stream.finish() }
        notificationHub.finish()
    }

    // MARK: Connecting

    /// Connects if not connected and the backoff has passed: what the listener does when its wait ends, and every
    /// call before its own work (so a call made after the backoff finds the connection made again, and the reset
    /// told, first).
    func connectIfDue() {
        if socket == nil && ContinuousClock.now >= nextAttempt { connect() }
    }

    /// One attempt; on failure the next waits for the backoff (50 ms doubling to 1 s). None once refused or
    /// closing.
    private func connect() {
        guard refusal == nil, !isShutDown, !wakeups.isClosing else { return }
        do throws(AudioSessionError) {
            do {
                socket = try LineSocket(path: socketPath)
            } catch {
                throw .daemonUnavailable(socketPath, error.reason)
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
            let because = "audiosessiond at \(socketPath) is back; the session was restored"
            notificationHub.send(.mediaServicesWereReset(MediaServicesNotification(because: because)))
        }
    }

    /// `hello`, the category the app set, `subscribe`, activation if it was active, its running streams.
    private func handshake() throws(AudioSessionError) {
        let reply = try exchange(Request(.hello(app: appName, call: isCall ? true : nil)))
        if let error = reply.error { throw AudioSessionError(error) }
        keepState(reply)
        published.withLock { $0.soundServer = reply.result?.soundServer }
        let wanted = published.withLock { ($0.category, $0.mode, $0.options) }
        if wanted.0 != .soloAmbient || wanted.1 != .default || !wanted.2.isEmpty {
            keepState(try exchange(Request(.setCategory(wanted.0, mode: wanted.1, options: wanted.2))))
        }
        keepState(try exchange(Request(.subscribe)))
        if wantsActive {
            // A refused activation (a call is active) leaves the session inactive: the reset tells the app to look.
            let activation = try exchange(Request(.activate))
            keepState(activation)
            if activation.error != nil { wantsActive = false }
        }
        try restartStreamsOrThrow()
    }

    private func restartStreams() { try? restartStreamsOrThrow() }

    private func restartStreamsOrThrow() throws(AudioSessionError) {
        for stream in streams.values.sorted(by: { $0.number < $1.number }) where stream.wantsRunning {
            keepState(try exchange(Request(.startStream(stream.number, direction: stream.direction))))
            streamsKnownToDaemon.insert(stream.number)
        }
    }

    /// The connection is gone: tell the app once, forget what the daemon knew, and retry soon.
    private func dropped(_ because: String) {
        socket?.close()
        socket = nil
        strayReplies.removeAll()
        published.withLock { $0.snapshot?.state = .inactive }
        streamsKnownToDaemon.removeAll()
        backoff = Self.firstBackoff
        nextAttempt = ContinuousClock.now + backoff
        guard isEstablished else { return }
        isEstablished = false
        wasLost = true
        notificationHub.send(.mediaServicesWereLost(MediaServicesNotification(because: because)))
    }

    /// Connects now if not connected (an app's request does not wait for the backoff); false when it cannot.
    func ensureConnected() -> Bool {
        if socket == nil { connect() }
        return socket != nil
    }

    var unavailable: AudioSessionError {
        if let refusal { return refusal }
        return .daemonUnavailable(socketPath, "not connected")
    }

    // MARK: Requests

    /// Sends `request` and returns its reply, reading on the caller's thread; events read meanwhile are handled
    /// first, as they arrived.
    func exchange(_ request: Request) throws(AudioSessionError) -> Reply {
        guard let socket else { throw unavailable }
        let id = nextID
        nextID += 1
        var request = request
        request.id = .number(id)
        do {
            try socket.send(line: LineCoding.encode(request))
        } catch {
            dropped("audiosessiond at \(socketPath) closed the connection")
            throw .daemonUnavailable(socketPath, "the connection closed")
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
            // A nested call (from a callback) may have dropped this connection and made another, which can reuse
            // the descriptor number, or closed the session: this request's reply will never come on that one.
            guard self.socket === socket else {
                if isShutDown { throw .daemonUnavailable(socketPath, "the session was closed before the reply") }
                throw .daemonUnavailable(socketPath, "the connection was replaced before the reply")
            }
            // The closing pipe too: `close()` must not wait for a daemon that does not answer.
            var descriptors = [
                pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeups.closing, events: Int16(POLLIN), revents: 0),
            ]
            let remaining = Int32(max(0, ((deadline - ContinuousClock.now) / .milliseconds(1)).rounded(.up)))
            guard poll(&descriptors, 2, remaining) > 0 else {
                dropped("audiosessiond at \(socketPath) stopped answering")
                throw .daemonUnavailable(socketPath, "no reply within \(Self.replyTimeout)")
            }
            if descriptors[1].revents != 0 {
                throw .daemonUnavailable(socketPath, "the session was closed before the reply")
            }
            if descriptors[0].revents != 0 {
                do {
                    try socket.fill()
                } catch {
                    dropped("audiosessiond at \(socketPath) closed the connection")
                    throw .daemonUnavailable(socketPath, "the connection closed before the reply")
                }
            }
        }
    }

    /// The session as a reply reports it, failed or not.
    func keepState(_ reply: Reply) {
        if let state = reply.result?.state { published.withLock { $0.snapshot = state } }
    }

    // MARK: Events

    /// Keeps what an event changes, then tells the app. A verdict's `onVerdict` runs here, on the thread that
    /// read it, the owner lock held.
    private func handle(_ event: Event) {
        switch event.event {
        case .streamVerdict:
            guard let number = event.stream, let update = StreamVerdictUpdate(event) else { return }
            streams[number]?.deliver(update)
            return
        case .interruption:
            wantsActive = false
            published.withLock { $0.snapshot?.state = event.type == "ended" ? .inactive : .interrupted }
        case .routeChange:
            if let route = event.currentRoute { published.withLock { $0.snapshot?.currentRoute = route } }
        case .silenceSecondaryAudioHint:
            published.withLock { $0.snapshot?.secondaryAudioShouldBeSilencedHint = event.type != "end" }
        case .mediaServicesWereReset:
            // Every session is inactive and every stream gone (M1): start the running ones again, then tell.
            wantsActive = false
            published.withLock { $0.snapshot?.state = .inactive }
            streamsKnownToDaemon.removeAll()
            daemonReset = event.because ?? "the sound server is back (M1)"
            return
        case .mediaServicesWereLost, .status:
            break
        }
        if let notification = AudioSessionNotification(event) { notificationHub.send(notification) }
    }
}

/// What the listener thread polls, taken under the owner lock and used without it.
struct ListenerWatch: Sendable {
    /// The socket's descriptor when connected; the doorbell is rung whenever it stops being the socket's.
    var socket: Int32?
    /// Milliseconds until the next connection attempt; -1 for none.
    var timeout: Int32
}

/// What callers read without the owner lock: the session as the app set it and as the daemon last reported it.
/// Only the owner lock's holder writes it.
struct PublishedState: Sendable {
    var category: Category = .soloAmbient
    var mode: Mode = .default
    var options: CategoryOptions = []
    /// The session as the daemon last reported it.
    var snapshot: SessionStateBody?
    var soundServer: Bool?
}
