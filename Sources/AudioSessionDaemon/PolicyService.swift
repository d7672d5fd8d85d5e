import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Locking
import Logging
import ServiceLifecycle

/// Carries out what the sound server is told: make each stream sound as its verdict says. A turn's verdicts come
/// in one call, so that the sound server's loop takes them together (one journal write, one set of writes).
protocol StreamEnforcer: Sendable {
    func enforce(_ verdicts: [(StreamOrigin, StreamVerdict)])
}

/// Carries out what the ALSA mixer control is told (no sound server): the system volume, the silent switch.
protocol MixerEnforcer: Sendable {
    func setVolume(_ volume: Double)
    func holdMuted(_ held: Bool)
}

/// Carries out what media players are told (section 6b): the bus shell sends the command and reports the answer,
/// or its absence within the timeout, as a `PlayerFact`.
protocol PlayerDriver: Sendable {
    func send(_ command: PlayerCommand, to busName: String, timeoutMs: Int)
}

/// Carries out what the platform is told over D-Bus: feedbackd's profile.
protocol PlatformEnforcer: Sendable {
    func setFeedbackdProfile(_ profile: String)
}

/// Runs timers on a loop that is awake anyway for the events that start and cancel them (the sound server's): a
/// timer there wakes no thread to start, cancel or fire.
protocol TimerLoop: Sendable {
    /// Calls `fire` on the loop after `delay`; returns the timer's cancel, or nil when the loop has ended.
    func start(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)?
}

/// The one place where the daemon decides: every input is handed to the core in one turn at a time, under one
/// lock, and its effects carried out (messages to clients, verdicts to the sound server, timers, log lines).
/// Most inputs queue on `inputs` and its loop takes them in order; the sound server's facts are handed over
/// directly (`take`, by `PulseService` on its own loop), so that a server event is decided on and answered
/// without a hop through this loop and back (docs/DAEMON.md, "The hot path").
final class PolicyService: Service {
    private let inputs: AsyncStream<DaemonInput>
    private let feedback: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let enforcer: (any StreamEnforcer)?
    private let mixer: (any MixerEnforcer)?
    private let players: (any PlayerDriver)?
    private let platform: (any PlatformEnforcer)?
    private let logger: Logger
    private let turns: Locked<Turns>
    /// The logger of the turns' lines, held while a `record()` writes what it took from `turns` (always taken
    /// before `turns`, never inside it). (Not a `Locked<Void>`: ThreadSanitizer reported its empty value's
    /// accesses under the lock as a race.)
    private let lineLogger: Locked<Logger>

    /// What the turns share, behind the lock.
    private struct Turns: Sendable {
        var core: DaemonCore
        /// Settings and the event log in the state directory; nil: none kept.
        var keeper: StateKeeper?
        var timers: [TimerID: RunningTimer] = [:]
        /// Starts so far: each timer's number.
        var timerStarts = 0
        /// Where timers start while the sound server's loop runs (`runTimers(on:)`); nil: on tasks.
        var timerLoop: (any TimerLoop)?
        var hasBegun = false
        /// Turns whose changes are not kept yet (`record()`).
        var hasUnrecordedTurns = false
        /// The turns' log lines, written by `record()` outside the lock: formatting and writing a line costs more
        /// than the decision it reports (a call's interruption of a hundred sessions logs two hundred).
        var logLines: [LogLine] = []
        /// The loop ended (shutdown): later inputs are not decided, as none were once the loop stopped reading.
        var hasEnded = false
    }

    /// A timer the core started, as it runs. Its number tells its fire from an earlier one's of the same name
    /// whose cancel came too late to stop it (a cancel from another thread reaches the loop after a fire due).
    private struct RunningTimer: Sendable {
        var number: Int
        var deadline: ContinuousClock.Instant
        var isOnLoop: Bool
        var cancel: @Sendable () -> Void
    }

    init(
        core: DaemonCore,
        inputs: AsyncStream<DaemonInput>,
        feedback: AsyncStream<DaemonInput>.Continuation,
        outboxes: Outboxes,
        enforcer: (any StreamEnforcer)?,
        mixer: (any MixerEnforcer)? = nil,
        players: (any PlayerDriver)? = nil,
        platform: (any PlatformEnforcer)? = nil,
        logger: Logger,
        keeper: StateKeeper? = nil
    ) {
        self.turns = Locked(Turns(core: core, keeper: keeper))
        self.lineLogger = Locked(logger)
        self.inputs = inputs
        self.feedback = feedback
        self.outboxes = outboxes
        self.enforcer = enforcer
        self.mixer = mixer
        self.players = players
        self.platform = platform
        self.logger = logger
    }

    func run() async {
        turns.withLock { Self.begin(&$0) }
        // On graceful shutdown the inputs end: what is already queued is decided on, then the loop ends. (Not
        // `cancelOnGracefulShutdown()`, whose merge of two sequences raced under ThreadSanitizer: it resumes the
        // loop's continuation while registering it, swift-async-algorithms issue 430.)
        await withGracefulShutdownHandler {
            for await input in inputs {
                take(input)
                record()
            }
        } onGracefulShutdown: { [feedback] in
            feedback.finish()
        }
        record(thenEnd: true)
    }

    /// Decides on `input` now, on the caller's thread, and carries out what follows; a turn of another thread
    /// is waited for. The effects only queue work elsewhere (a verdict, a message, a player's command), never
    /// wait for it, so no turn waits on another. What the turn changed is kept (settings, the event log) at the
    /// next `record()`: the sound server's loop calls it once its orders are out, so that writing the event log
    /// is not on the path from a server event to the orders that answer it.
    func take(_ input: DaemonInput) {
        turns.withLock { turns in
            guard !turns.hasEnded else { return }
            Self.begin(&turns)
            turn(input, &turns)
        }
    }

    /// Keeps what the turns since the last call changed: the user's settings, the event log's records.
    func record() {
        record(thenEnd: false)
    }

    /// `record()`; with `thenEnd`, in the same hold of the lock, no turn is taken after it (the loop ended).
    private func record(thenEnd ending: Bool) {
        // Callers take turns here (`lineLogger`), so lines are written in the order they were decided; a `take`
        // meanwhile waits only for the short part under `turns`.
        lineLogger.withLock { logger in
            let lines = turns.withLock { turns in
                let lines = Self.record(&turns)
                if ending {
                    turns.hasEnded = true
                    for timer in turns.timers.values { timer.cancel() }
                    turns.timers = [:]
                    turns.timerLoop = nil
                    if turns.hasBegun { turns.keeper?.finish() }
                }
                return lines
            }
            for line in lines { logger.info("\(line)") }
        }
    }

    /// Keeps the turns' changes; returns their log lines, to be written once the lock is let go.
    private static func record(_ turns: inout Turns) -> [LogLine] {
        guard turns.hasUnrecordedTurns else { return [] }
        turns.hasUnrecordedTurns = false
        turns.keeper?.after(&turns.core)
        defer { turns.logLines.removeAll(keepingCapacity: true) }
        return turns.logLines
    }

    /// The event log's first record, once: at the loop's start, or at the first fact handed over before it.
    private static func begin(_ turns: inout Turns) {
        guard !turns.hasBegun else { return }
        turns.hasBegun = true
        turns.keeper?.begin(&turns.core)
    }

    private func turn(_ input: DaemonInput, _ turns: inout Turns) {
        // A request that needs a state write has it made (or room for it found) first; one that cannot be
        // is refused before it changes anything.
        turns.core.stateProblem = nil
        if case .request(let client, let request) = input, turns.core.permits(request, from: client) {
            turns.core.stateProblem = turns.keeper?.prepare(request, core: turns.core)
        }
        let effects = turns.core.handle(input)
        // The verdicts go first, all at once: the sound server's loop may take them while this turn still sends
        // its messages (a call's interruption to a hundred sessions takes milliseconds).
        enforcer?.enforce(
            effects.compactMap { if case .enforce(let origin, let verdict) = $0 { (origin, verdict) } else { nil } }
        )
        for effect in effects {
            switch effect {
            case .send(let client, let message):
                outboxes.send(message, to: client)
            case .enforce:
                break
            case .setMixerVolume(let volume):
                mixer?.setVolume(volume)
            case .holdMixerMuted(let held):
                mixer?.holdMuted(held)
            case .setFeedbackdProfile(let profile):
                platform?.setFeedbackdProfile(profile)
            case .startTimer(let timer, let milliseconds):
                start(timer, after: .milliseconds(milliseconds), &turns)
            case .cancelTimer(let timer):
                turns.timers.removeValue(forKey: timer)?.cancel()
            case .callPlayer(let busName, let command, let timeoutMs):
                players?.send(command, to: busName, timeoutMs: timeoutMs)
            case .log(let line):
                turns.logLines.append(line)
            }
        }
        turns.hasUnrecordedTurns = true
    }

    // MARK: Timers

    /// Starts the timers from now on on `loop` (the sound server's, while connected).
    func runTimers(on loop: any TimerLoop) {
        turns.withLock { turns in
            if !turns.hasEnded { turns.timerLoop = loop }
        }
    }

    /// The loop the timers ran on has ended, and its timers with it: those still to fire do on tasks, when they
    /// were due.
    func timerLoopEnded() {
        turns.withLock { turns in
            turns.timerLoop = nil
            for (timer, running) in turns.timers where running.isOnLoop {
                turns.timers[timer] = onTask(timer, running.number, until: running.deadline)
            }
        }
    }

    private func start(_ timer: TimerID, after delay: Duration, _ turns: inout Turns) {
        turns.timers.removeValue(forKey: timer)?.cancel()
        turns.timerStarts += 1
        let number = turns.timerStarts
        let deadline = ContinuousClock.now + delay
        if let loop = turns.timerLoop, let cancel = loop.start(after: delay, { [self] in fire(timer, number) }) {
            turns.timers[timer] = RunningTimer(number: number, deadline: deadline, isOnLoop: true, cancel: cancel)
        } else {
            turns.timers[timer] = onTask(timer, number, until: deadline)
        }
    }

    private func onTask(_ timer: TimerID, _ number: Int, until deadline: ContinuousClock.Instant) -> RunningTimer {
        let task = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { fire(timer, number) }
        }
        return RunningTimer(number: number, deadline: deadline, isOnLoop: false, cancel: { task.cancel() })
    }

    /// A timer ran out: the core is told on the thread it ran out on, unless the timer was cancelled or started
    /// anew meanwhile.
    private func fire(_ timer: TimerID, _ number: Int) {
        let taken = turns.withLock { turns -> Bool in
            guard !turns.hasEnded, turns.timers[timer]?.number == number else { return false }
            turns.timers[timer] = nil
            Self.begin(&turns)
            turn(.timerFired(timer), &turns)
            return true
        }
        if taken { record() }
    }
}
