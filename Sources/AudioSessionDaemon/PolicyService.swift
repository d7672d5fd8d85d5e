import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Logging
import ServiceLifecycle

/// Carries out what the sound server is told: make a stream sound as its verdict says.
protocol StreamEnforcer: Sendable {
    func enforce(_ origin: StreamOrigin, _ verdict: StreamVerdict)
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

/// The one loop that takes every daemon input in order, hands it to the core, and carries out the effects:
/// messages to clients, verdicts to the sound server, timers, log lines.
final class PolicyService: Service {
    private let initialCore: DaemonCore
    private let inputs: AsyncStream<DaemonInput>
    private let feedback: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let enforcer: (any StreamEnforcer)?
    private let mixer: (any MixerEnforcer)?
    private let players: (any PlayerDriver)?
    private let platform: (any PlatformEnforcer)?
    private let logger: Logger
    /// Settings and the event log in the state directory; nil: none kept.
    private let initialKeeper: StateKeeper?

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
        self.initialKeeper = keeper
        self.initialCore = core
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
        var core = initialCore
        var keeper = initialKeeper
        keeper?.begin(&core)
        defer { keeper?.finish() }
        var timers: [TimerID: Task<Void, Never>] = [:]
        for await input in inputs.cancelOnGracefulShutdown() {
            // A request that needs a state write has it made (or room for it found) first; one that cannot be
            // is refused before it changes anything.
            core.stateProblem = nil
            if case .request(let client, let request) = input, core.permits(request, from: client) {
                core.stateProblem = keeper?.prepare(request, core: core)
            }
            for effect in core.handle(input) {
                switch effect {
                case .send(let client, let message):
                    outboxes.send(message, to: client)
                case .enforce(let origin, let verdict):
                    enforcer?.enforce(origin, verdict)
                case .setMixerVolume(let volume):
                    mixer?.setVolume(volume)
                case .holdMixerMuted(let held):
                    mixer?.holdMuted(held)
                case .setFeedbackdProfile(let profile):
                    platform?.setFeedbackdProfile(profile)
                case .startTimer(let timer, let milliseconds):
                    let feedback = feedback
                    timers[timer] = Task {
                        try? await Task.sleep(for: .milliseconds(milliseconds))
                        if !Task.isCancelled { feedback.yield(.timerFired(timer)) }
                    }
                case .cancelTimer(let timer):
                    timers.removeValue(forKey: timer)?.cancel()
                case .callPlayer(let busName, let command, let timeoutMs):
                    players?.send(command, to: busName, timeoutMs: timeoutMs)
                case .log(let line):
                    logger.info("\(line)")
                }
            }
            keeper?.after(&core)
        }
        for timer in timers.values { timer.cancel() }
    }
}
