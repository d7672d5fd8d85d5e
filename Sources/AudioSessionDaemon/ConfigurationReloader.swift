import AudioSessionConfiguration
import AudioSessionDaemonCore
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP reads the configuration file again. A good one replaces the running configuration without dropping
/// a session; a bad one is reported, one log line per issue (`file:line:column: field: ...`) and a summary
/// line, and the running configuration stays.
///
/// A good reload applies the policy (duck level, fade, grace, call exemptions, rules) and the port rules at
/// once. The control socket, the ALSA section and the log level are set up when the daemon starts: a reload
/// that changes them says so, and they take effect at the next start.
///
/// SIGHUP is trapped when the reloader is made, before any service runs and so before READY=1: a reload asked
/// for right after the start (`systemctl reload`) is taken, never the signal's default, which ends the process.
final class ConfigurationReloader: Service {
    private let hangups: UnixSignalsSequence
    private let path: String
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let pulse: PulseService?
    private let logger: Logger
    /// The configuration the daemon started with; nil when not told (then the fields that wait for a restart
    /// are compared from the first good reload on).
    private let started: DaemonConfiguration?
    /// Told true when a reload begins and false when it is done, good or bad (systemd: RELOADING=1, READY=1).
    private let reloading: (@Sendable (_ begins: Bool) -> Void)?
    /// False when `--log-level` was given: the command line's level stands.
    private let reloadsLogLevel: Bool

    init(
        path: String,
        hangups: UnixSignalsSequence,
        inputs: AsyncStream<DaemonInput>.Continuation,
        pulse: PulseService?,
        logger: Logger,
        running started: DaemonConfiguration? = nil,
        reloadsLogLevel: Bool = true,
        reloading: (@Sendable (_ begins: Bool) -> Void)? = nil
    ) {
        self.path = path
        self.hangups = hangups
        self.inputs = inputs
        self.pulse = pulse
        self.logger = logger
        self.started = started
        self.reloadsLogLevel = reloadsLogLevel
        self.reloading = reloading
    }

    func run() async throws {
        var running = started
        for await _ in hangups.cancelOnGracefulShutdown() {
            reloading?(true)
            defer { reloading?(false) }
            let configuration: DaemonConfiguration
            do {
                configuration = try DaemonConfigurationLoader.load(path: path)
            } catch let error as ConfigurationError {
                for issue in error.issues { logger.error("\(issue)") }
                logger.error("configuration not reloaded, the running one stays: \(error.summary)")
                continue
            } catch {
                logger.error("configuration not reloaded, the running one stays: \(error)")
                continue
            }
            inputs.yield(.reconfigure(configuration))
            pulse?.updateRules(configuration.ports)
            pulse?.updateFade(milliseconds: configuration.policy.duckFadeMs)
            if reloadsLogLevel, let level = Logger.Level(rawValue: configuration.logLevel) {
                LogOutput.level.current = level
            }
            logger.notice("configuration reloaded from \(path)")
            var waiting = running.map { Self.fieldsForTheNextStart(running: $0, new: configuration) } ?? []
            if !reloadsLogLevel, let running, running.logLevel != configuration.logLevel {
                logger.warning("\(path): logLevel changed, but --log-level on the command line stands")
            }
            waiting.removeAll { $0 == "logLevel" }
            if !waiting.isEmpty {
                logger.warning(
                    "\(path): \(waiting.joined(separator: ", ")) changed; the daemon sets these up when it starts, so they take effect at the next start"
                )
            }
            // What is in force now: the new policy, port rules and log level, and the socket and ALSA of the start.
            var inForce = running ?? configuration
            inForce.policy = configuration.policy
            inForce.ports = configuration.ports
            if reloadsLogLevel { inForce.logLevel = configuration.logLevel }
            running = inForce
        }
    }

    /// The fields that differ between `running` and `new` and that only a restart applies.
    static func fieldsForTheNextStart(running: DaemonConfiguration, new: DaemonConfiguration) -> [String] {
        var fields: [String] = []
        if running.socketPath != new.socketPath { fields.append("socket.path") }
        if running.socketMode != new.socketMode { fields.append("socket.mode") }
        if running.socketGroup != new.socketGroup { fields.append("socket.group") }
        if running.alsa != new.alsa { fields.append("alsa") }
        if running.platform != new.platform { fields.append("platform") }
        if running.logLevel != new.logLevel { fields.append("logLevel") }
        return fields
    }
}
