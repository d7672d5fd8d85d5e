import AudioSessionScenario
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP reads the configuration file again. A good one replaces the running configuration without dropping
/// a session; a bad one is reported (file:line and the field) and the running configuration stays.
final class ConfigurationReloader: Service {
    private let path: String
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let pulse: PulseService?
    private let logger: Logger

    init(path: String, inputs: AsyncStream<DaemonInput>.Continuation, pulse: PulseService?, logger: Logger) {
        self.path = path
        self.inputs = inputs
        self.pulse = pulse
        self.logger = logger
    }

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let configuration = try DaemonConfigurationLoader.load(path: path)
                inputs.yield(.reconfigure(configuration))
                pulse?.updateRules(configuration.ports)
                logger.notice("configuration reloaded from \(path)")
            } catch {
                logger.error("configuration not reloaded, the running one stays: \(error)")
            }
        }
    }
}
