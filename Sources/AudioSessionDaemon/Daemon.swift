import AudioSessionPolicy
import Foundation
import Logging
import ServiceLifecycle

/// The daemon: the control server, the policy loop and (unless told otherwise) the PulseAudio backend, run
/// as one service group that shuts down gracefully on SIGTERM and SIGINT.
public enum Daemon {
    public static func run(_ options: DaemonOptions, logger: Logger = Logger(label: "audiosessiond")) async throws {
        let (inputs, feed) = AsyncStream<DaemonInput>.makeStream()
        let outboxes = Outboxes()
        let core = DaemonCore(engine: PolicyEngine(config: options.policy, outputs: [], inputs: []), controlUserID: getuid())
        var services: [any Service] = []
        var enforcer: (any StreamEnforcer)?
        if options.soundServer {
            let pulse = PulseService(server: options.pulseServer, inputs: feed, fadeMilliseconds: options.policy.duckFadeMs, logger: logger)
            enforcer = pulse
            services.append(pulse)
        }
        let policy = PolicyService(core: core, inputs: inputs, feedback: feed, outboxes: outboxes, enforcer: enforcer, logger: logger)
        services.append(policy)
        services.append(ControlServer(path: options.socketPath, inputs: feed, outboxes: outboxes, logger: logger, ready: options.onReady))
        // Shut down in reverse: stop taking requests, stop deciding, then give every stream back its user's values.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }
}
