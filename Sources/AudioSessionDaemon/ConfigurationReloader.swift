import AudioSessionScenario
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP reads the configuration file again. A good one replaces the running configuration without dropping
/// a session; a bad one is reported (file:line and the field) and the running configuration stays.
///
/// SIGHUP is trapped when the reloader is made, before any service runs and so before READY=1: a reload asked
/// for right after the start (`systemctl reload`) is taken, never the signal's default, which ends the process.
final class ConfigurationReloader: Service {
    private let hangups: UnixSignalsSequence
    private let path: String
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let pulse: PulseService?
    private let logger: Logger
    /// Told true when a reload begins and false when it is done, good or bad (systemd: RELOADING=1, READY=1).
    private let reloading: (@Sendable (_ begins: Bool) -> Void)?

    init(
        path: String,
        hangups: UnixSignalsSequence,
        inputs: AsyncStream<DaemonInput>.Continuation,
        pulse: PulseService?,
        logger: Logger,
        reloading: (@Sendable (_ begins: Bool) -> Void)? = nil
    ) {
        self.path = path
        self.hangups = hangups
        self.inputs = inputs
        self.pulse = pulse
        self.logger = logger
        self.reloading = reloading
    }

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            reloading?(true)
            defer { reloading?(false) }
            do {
                let configuration = try DaemonConfigurationLoader.load(path: path)
                inputs.yield(.reconfigure(configuration))
                pulse?.updateRules(configuration.ports)
                pulse?.updateFade(milliseconds: configuration.policy.duckFadeMs)
                logger.notice("configuration reloaded from \(path)")
            } catch {
                logger.error("configuration not reloaded, the running one stays: \(error)")
            }
        }
    }
}
