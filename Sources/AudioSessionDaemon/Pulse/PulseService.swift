import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionConfiguration
import Logging
import PulseBackend
import ServiceLifecycle
import Locking
import Synchronization

/// The PulseAudio (or pipewire-pulse) side of the daemon: tells the policy what the server has, and makes the
/// server's streams sound as the policy decides. When the server goes away it reports the loss, reconnects
/// with backoff and reports it back; on shutdown it gives every stream its user's values back.
final class PulseService: Service, StreamEnforcer {
    private let server: String?
    private let inputs: AsyncStream<DaemonInput>.Continuation
    /// How devices become ports; a reload replaces them.
    private let rules: Locked<PortRules>
    /// How long ducking and its end take (duckFadeMs); a reload replaces it.
    private let fadeMilliseconds: Locked<Int>
    private let logger: Logger
    /// Where the stream journal is kept; nil: no journal.
    private let journalPath: String?
    /// The running connection's work queue; nil while disconnected (verdicts then have nothing to act on, and
    /// everything is decided anew after reconnecting).
    private let work = Locked<AsyncStream<PulseWork>.Continuation?>(nil)
    /// Verdicts not carried out yet. The policy hands them over one by one, as it decides; the connection's
    /// loop takes all there are in one turn (`.verdicts`), so one stream-journal write covers them.
    private let handover = Locked(VerdictHandover())
    private let shuttingDown = Atomic<Bool>(false)
    /// Where the server's facts are decided on at once (`PolicyService.take`); until it is set, they queue on
    /// `inputs` like every other input.
    private let policy = Locked<PolicyService?>(nil)
    /// Told true once connected with the inventory reported, false when the connection is lost: readiness for
    /// systemd.
    private let connectionChanged: (@Sendable (_ connected: Bool) -> Void)?

    init(
        server: String?,
        inputs: AsyncStream<DaemonInput>.Continuation,
        rules: PortRules = .standard,
        fadeMilliseconds: Int,
        logger: Logger,
        journalPath: String? = nil,
        connectionChanged: (@Sendable (_ connected: Bool) -> Void)? = nil
    ) {
        self.journalPath = journalPath
        self.server = server
        self.inputs = inputs
        self.rules = Locked(rules)
        self.fadeMilliseconds = Locked(fadeMilliseconds)
        self.logger = logger
        self.connectionChanged = connectionChanged
    }

    /// Hands the server's facts to `decide` from now on, on this service's own loop, instead of queueing them: the
    /// policy's verdicts on an event are then carried out in the turn that read it (docs/DAEMON.md, "The hot path").
    func decide(with policy: PolicyService) {
        self.policy.withLock { $0 = policy }
    }

    /// Tells the policy a fact of the server, in the order they happen.
    private func tell(_ fact: SoundFact) {
        if let policy = policy.withLock({ $0 }) {
            policy.take(.sound(fact))
        } else {
            inputs.yield(.sound(fact))
        }
    }

    /// A new fade time (a reload): fades that start from now on take it.
    func updateFade(milliseconds: Int) {
        fadeMilliseconds.withLock { $0 = milliseconds }
        _ = work.withLock { $0?.yield(.fade(milliseconds)) }
    }

    /// New port rules (a reload): the devices there now are mapped again.
    func updateRules(_ newRules: PortRules) {
        rules.withLock { $0 = newRules }
        _ = work.withLock { $0?.yield(.rules(newRules)) }
    }

    func enforce(_ verdicts: [(StreamOrigin, StreamVerdict)]) {
        guard !verdicts.isEmpty else { return }
        let wake = handover.withLock { handover in
            defer { handover.pending.append(contentsOf: verdicts) }
            return handover.pending.isEmpty && !handover.loopTurnTakesThem
        }
        guard wake else { return }
        let queued = work.withLock { work -> Bool in
            guard case .enqueued = work?.yield(.verdicts) else { return false }
            return true
        }
        // No connection: nothing to act on (everything is decided anew after reconnecting).
        if !queued { handover.withLock { $0.pending.removeAll() } }
    }

    private func takeVerdicts() -> [(StreamOrigin, StreamVerdict)] {
        handover.withLock { handover in
            defer { handover.pending.removeAll() }
            return handover.pending
        }
    }

    /// The loop's turn ends: verdicts handed over after it last took them wake it for another.
    private func endLoopTurn() {
        let wake = handover.withLock { handover in
            handover.loopTurnTakesThem = false
            return !handover.pending.isEmpty
        }
        if wake { _ = work.withLock { $0?.yield(.verdicts) } }
    }

    func run() async {
        await withGracefulShutdownHandler {
            await self.connectLoop()
        } onGracefulShutdown: {
            self.shuttingDown.store(true, ordering: .relaxed)
            _ = self.work.withLock { $0?.yield(.shutdown) }
        }
    }

    private func connectLoop() async {
        var delay = Duration.milliseconds(100)
        var lossReported = false
        while !shuttingDown.load(ordering: .relaxed) && !Task.isCancelled {
            let connection = PulseConnection(
                server: server,
                applicationName: "audiosessiond",
                properties: ["application.id": "audiosessiond"],
                appPropertyKeys: SoundStream.propertyKeys
            )
            let reason: String
            do {
                try await connection.connect()
                delay = .milliseconds(100)
                lossReported = false
                // The connection's loop runs on libpulse's thread: an event, a query's answer and a request's
                // completion resume it there, with no thread woken in between (docs/DAEMON.md, "The hot path").
                reason = await withTaskExecutorPreference(connection.executor) { await serve(connection) }
            } catch {
                reason = "\(error)"
            }
            connection.close()
            // Its timers went with its loop; those of the policy's still to fire run elsewhere.
            policy.withLock { $0 }?.timerLoopEnded()
            if shuttingDown.load(ordering: .relaxed) { return }
            if !lossReported {
                logger.warning("sound server unavailable: \(reason); retrying")
                tell(.serverLost(reason: reason))
                connectionChanged?(false)
                lossReported = true
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// One connection, until it is lost (returns why) or the daemon shuts down.
    private func serve(_ connection: PulseConnection) async -> String {
        let (queue, feed) = AsyncStream<PulseWork>.makeStream()
        handover.withLock { $0 = VerdictHandover() }
        work.withLock { $0 = feed }
        defer { work.withLock { $0 = nil } }
        if shuttingDown.load(ordering: .relaxed) { return "shutting down" }
        // Listen before the inventory, so nothing that happens meanwhile is missed. Events are queued on
        // libpulse's thread as they are read; a new stream's comes with its info, asked for there and then, and so
        // does a stream's or device's change. A change that finds one of the same object still queued is not
        // queued again: its info, asked for after both, replaces the queued one's, and the loop takes it when it
        // gets there (our own writes' echoes come in runs).
        let waitingChanges = Locked<[PulseEvent: PulsePrefetch?]>([:])
        // Events that bring the loop nothing new (a device's change it cannot see, a client's) stay here.
        let sieve = Locked(EventSieve())
        connection.listen(prefetchingNewStreams: true, prefetchingChanges: true) { event, prefetch in
            if sieve.withLock({ $0.sift(event, info: prefetch?.info) }) == .keep { return }
            if event.isCoalescedChange {
                let isQueued = waitingChanges.withLock { waiting in
                    defer { waiting[event] = .some(prefetch) }
                    return waiting[event] != nil
                }
                if isQueued { return }
            }
            feed.yield(.event(event, prefetch))
        }
        var session = PulseSession(
            connection: connection,
            tell: { [self] in tell($0) },
            work: feed,
            rules: rules.withLock { $0 },
            fadeMilliseconds: fadeMilliseconds.withLock { $0 },
            logger: logger,
            journalPath: journalPath,
            serverAddress: server,
            takeVerdicts: { [self] in takeVerdicts() },
            changeTaken: { event in waitingChanges.withLock { $0.removeValue(forKey: event) ?? nil } },
            clientLine: { client in sieve.withLock { $0.clientLines[client] } }
        )
        defer { session.closeJournal() }
        logger.info("connected to the sound server")
        // The policy's timers run on libpulse's thread too: a stream's end starts one (an unaware app's grace),
        // its return or the grace's end is taken there.
        policy.withLock { $0 }?.runTimers(on: ConnectionTimerLoop(executor: connection.executor))
        tell(.serverConnected)
        do {
            let policy = policy.withLock { $0 }
            try await session.takeInventory()
            policy?.record()
            connectionChanged?(true)
            for await item in queue {
                // The turn takes the verdicts its facts bring before it ends (`PulseSession.handle`): they need
                // no `.verdicts` of their own.
                handover.withLock { $0.loopTurnTakesThem = true }
                let progress = try await session.handle(item)
                endLoopTurn()
                // The orders are out: now the policy keeps what its turns changed (the event log).
                policy?.record()
                if progress == .finished { return "shutting down" }
            }
            return "connection closed"
        } catch {
            return "\(error)"
        }
    }
}

/// The policy's verdicts on their way to the connection's loop.
private struct VerdictHandover {
    var pending: [(StreamOrigin, StreamVerdict)] = []
    /// The loop is in a turn and takes every verdict there is before it ends: no `.verdicts` is queued meanwhile.
    var loopTurnTakesThem = false
}

/// Timers on a connection's libpulse thread.
struct ConnectionTimerLoop: TimerLoop {
    let executor: PulseLoopExecutor

    func start(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        guard let timer = executor.startTimer(after: delay, fire) else { return nil }
        return { [executor] in executor.cancelTimer(timer) }
    }
}

/// What the connection's loop works on, one at a time.
enum PulseWork: Sendable {
    /// A server event, and a new stream's info when it was asked for as the event was read.
    case event(PulseEvent, PulsePrefetch?)
    /// Verdicts are waiting: carry out all there are.
    case verdicts
    /// A timer the stream machine asked for ran out.
    case timerFired(StreamTimer)
    /// Reloaded port rules: map the devices again.
    case rules(PortRules)
    /// A reloaded fade time, for the fades that start from now on.
    case fade(Int)
    case shutdown
}

extension PulseEvent {
    /// A playback or record stream's change, or a device's (not its appearance or removal): one still queued
    /// stands for the next of the same object, whose info it takes. A stream's volume change comes with its
    /// device's, and our own writes come in runs.
    fileprivate var isCoalescedChange: Bool {
        switch self {
        case .changed(.sinkInput, .change, _), .changed(.sourceOutput, .change, _), .changed(.sink, .change, _),
            .changed(.source, .change, _):
            true
        default: false
        }
    }
}
