import AudioSessionDaemonCore
import AudioSessionProtocol
import FoundationEssentials
import Logging
import ServiceLifecycle
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps systemd told how the daemon is (`Type=notify`): `READY=1` once the control socket listens and the
/// sound server is connected, a `STATUS=` line when the numbers change, `WATCHDOG=1` while the policy loop
/// answers, `RELOADING=1`/`READY=1` around a configuration reload and `STOPPING=1` when shutting down.
///
/// Everything it tells comes from a round trip through the policy loop: it is an in-process client of the
/// daemon (client number 0, which the control server never gives out) that asks for `status` on every tick
/// and speaks only when the answer is there. A policy loop that hangs answers nothing, so the watchdog pings
/// stop and systemd restarts the daemon; `READY=1` comes only after the loop has taken in the sound server's
/// inventory, so a client that connects then sees the real devices.
final class SystemdService: Service {
    /// The in-process client that asks the policy loop for its status.
    static let probeClient = ClientID(rawValue: 0)
    /// `STATUS=` changes at most this often.
    static let statusInterval = Duration.seconds(1)

    private let notifier: SystemdNotifier
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let logger: Logger
    /// Half the watchdog timeout: how often to ping; nil with no watchdog.
    private let watchdogInterval: Duration?
    private let readiness: Locked<SystemdReadiness>
    /// Wakes the loop for a round: the clock's ticks, and readiness changes between them. A loop that is busy
    /// keeps only the latest wake-up.
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let failureReported = Atomic<Bool>(false)

    init(
        notifier: SystemdNotifier,
        watchdogTimeout: Duration?,
        soundServer: Bool,
        inputs: AsyncStream<DaemonInput>.Continuation,
        outboxes: Outboxes,
        logger: Logger
    ) {
        self.notifier = notifier
        self.inputs = inputs
        self.outboxes = outboxes
        self.logger = logger
        self.watchdogInterval = watchdogTimeout.map { $0 / 2 }
        self.readiness = Locked(SystemdReadiness(soundServer: soundServer ? .waiting : .notUsed))
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The service for this environment, or nil when systemd is not listening (`NOTIFY_SOCKET` unset).
    static func make(
        _ environment: SystemdEnvironment,
        soundServer: Bool,
        inputs: AsyncStream<DaemonInput>.Continuation,
        outboxes: Outboxes,
        logger: Logger
    ) -> SystemdService? {
        guard let destination = environment.notifySocket else { return nil }
        do {
            let notifier = try SystemdNotifier(destination: destination)
            logger.debug(
                "notifying systemd at \(destination); watchdog: \(environment.watchdogTimeout.map { "\($0)" } ?? "off")"
            )
            return SystemdService(
                notifier: notifier,
                watchdogTimeout: environment.watchdogTimeout,
                soundServer: soundServer,
                inputs: inputs,
                outboxes: outboxes,
                logger: logger
            )
        } catch {
            logger.warning("not notifying systemd: \(error)")
            return nil
        }
    }

    // MARK: - What the other services report

    /// The control socket listens.
    func socketListening() {
        readiness.withLock { $0.listening = true }
        wake.yield()
    }

    /// The sound server is connected and its inventory reported (true), or the connection is lost (false).
    func soundServerConnected(_ connected: Bool) {
        readiness.withLock { $0.soundServer = connected ? .connected : .lost }
        wake.yield()
    }

    /// A reload begins (true: `RELOADING=1` right away) or its configuration is handed to the policy loop
    /// (false: `READY=1` once the loop has answered after it).
    func reloading(_ begins: Bool) {
        if begins {
            send([
                "RELOADING=1", "MONOTONIC_USEC=\(SystemdNotifier.monotonicMicroseconds())",
                "STATUS=reloading the configuration",
            ])
        } else {
            readiness.withLock { $0.reloadHandedOver = true }
            wake.yield()
        }
    }

    // MARK: - Service

    func run() async {
        let (replies, mailbox) = AsyncStream<ServerMessage>.makeStream()
        outboxes.register(Self.probeClient, mailbox)
        inputs.yield(
            .clientConnected(
                Self.probeClient,
                ClientPeer(processID: getpid(), userID: getuid(), processName: "systemd notifier")
            )
        )
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await self.notifyLoop(replies) }
        } onGracefulShutdown: {
            self.send(["STOPPING=1", "STATUS=stopping: giving every stream back its user's values"])
        }
        outboxes.remove(Self.probeClient)
        inputs.yield(.clientDisconnected(Self.probeClient))
    }

    /// One round per wake-up: ask the policy loop for its status, then say what is due. The clock wakes it
    /// every second, or at the watchdog's pace when that is faster.
    private func notifyLoop(_ replies: AsyncStream<ServerMessage>) async {
        var announcer = SystemdAnnouncer(watchdogInterval: watchdogInterval, statusInterval: Self.statusInterval)
        let tick = announcer.tick
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    self.wake.yield()
                    try? await Task.sleep(for: tick)
                }
            }
            var replies = replies.makeAsyncIterator()
            var number = 0
            for await _ in wakeups {
                // What was true before the request is true of its answer: the loop took the request after it.
                let before = readiness.withLock { state in
                    defer { state.reloadHandedOver = false }
                    return state
                }
                number += 1
                inputs.yield(.request(Self.probeClient, Request(id: .number(number), .status)))
                var answer: StatusBody?
                while let message = await replies.next() {
                    guard case .reply(let reply) = message, reply.id == .number(number) else { continue }
                    answer = reply.result?.status
                    break
                }
                guard !Task.isCancelled, let status = answer else { break }
                let fields = announcer.fields(
                    at: .now,
                    sessions: status.sessions.count,
                    streams: status.streams.count,
                    readiness: before
                )
                if !fields.isEmpty { send(fields) }
            }
            group.cancelAll()
        }
    }

    private func send(_ fields: [String]) {
        do {
            try notifier.send(fields)
            logger.trace("told systemd: \(fields.joined(separator: ", "))")
        } catch {
            // Once as a warning; systemd may come back (a re-executed manager), so keep trying.
            if failureReported.exchange(true, ordering: .relaxed) {
                logger.debug("\(error)")
            } else {
                logger.warning("\(error)")
            }
        }
    }
}

/// What the daemon has reached, as the services report it.
struct SystemdReadiness: Sendable, Equatable {
    enum SoundServer: Sendable, Equatable {
        /// `--no-sound-server`.
        case notUsed
        /// Not connected yet.
        case waiting
        case connected
        /// Lost (or never reached); reconnecting.
        case lost
    }

    var listening = false
    var soundServer: SoundServer
    /// A reloaded configuration went to the policy loop since the last round.
    var reloadHandedOver = false

    var isReady: Bool {
        guard listening else { return false }
        switch soundServer {
        case .notUsed, .connected: return true
        case .waiting, .lost: return false
        }
    }
}

/// What to tell systemd after each round trip through the policy loop: pure, so its pacing is tested without a
/// clock.
struct SystemdAnnouncer: Sendable {
    /// Half the watchdog timeout; nil with no watchdog.
    let watchdogInterval: Duration?
    let statusInterval: Duration
    private var readySent = false
    private var lastStatus: String?
    private var lastStatusSent: ContinuousClock.Instant?
    private var lastPing: ContinuousClock.Instant?

    init(watchdogInterval: Duration?, statusInterval: Duration) {
        self.watchdogInterval = watchdogInterval
        self.statusInterval = statusInterval
    }

    /// How often the loop should run a round.
    var tick: Duration { min(statusInterval, watchdogInterval ?? statusInterval) }

    /// The fields to send after a round trip that began with `readiness` and found these numbers.
    mutating func fields(
        at now: ContinuousClock.Instant,
        sessions: Int,
        streams: Int,
        readiness: SystemdReadiness
    ) -> [String] {
        var fields: [String] = []
        var announcesState = false
        // Ready once; after that, a reload ends with READY=1 whatever the sound server does meanwhile.
        if readiness.isReady && !readySent || readySent && readiness.reloadHandedOver {
            fields.append("READY=1")
            readySent = true
            announcesState = true
        }
        let status = Self.statusLine(sessions: sessions, streams: streams, readiness: readiness)
        // READY=1 carries the status too: a reload's RELOADING=1 came with a status of its own.
        if announcesState || status != lastStatus && lastStatusSent.map({ now - $0 >= statusInterval }) ?? true {
            fields.append("STATUS=\(status)")
            lastStatus = status
            lastStatusSent = now
        }
        // A round that comes early (a readiness change) pings too, if at least half an interval has passed.
        if let interval = watchdogInterval, lastPing.map({ now - $0 >= interval - tick / 2 }) ?? true {
            fields.append("WATCHDOG=1")
            lastPing = now
        }
        return fields
    }

    /// "3 sessions, 5 streams, sound server connected".
    static func statusLine(sessions: Int, streams: Int, readiness: SystemdReadiness) -> String {
        guard readiness.listening else { return "starting" }
        let soundServer =
            switch readiness.soundServer {
            case .notUsed: "no sound server"
            case .waiting: "waiting for the sound server"
            case .connected: "sound server connected"
            case .lost: "sound server unavailable, reconnecting"
            }
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return "\(count(sessions, "session")), \(count(streams, "stream")), \(soundServer)"
    }
}
