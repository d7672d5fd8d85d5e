import AudioSessionConfiguration
import AudioSessionDaemonCore
import DBusBackend
import Logging
import ServiceLifecycle

/// The daemon on the platform's buses: the switch from feedbackd and the lock from logind or the screensaver
/// come in as `DaemonInput.platform`, and feedbackd's profile is set when the core says so. Runs until the
/// daemon shuts down; a bus that goes away ends what followed it (the switch and the lock stay as they are).
final class PlatformBusService: Service, PlatformEnforcer {
    private let buses: PlatformBuses
    private let settings: PlatformSettings
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let logger: Logger
    private let trouble: TroubleLog
    private let profileWrites: AsyncStream<String>
    private let profileWriter: AsyncStream<String>.Continuation

    init(
        buses: PlatformBuses,
        settings: PlatformSettings,
        inputs: AsyncStream<DaemonInput>.Continuation,
        logger: Logger
    ) {
        self.buses = buses
        self.settings = settings
        self.inputs = inputs
        self.logger = logger
        self.trouble = TroubleLog(logger: logger)
        (profileWrites, profileWriter) = AsyncStream.makeStream(of: String.self)
    }

    /// Queued, so that two switches set quickly reach feedbackd in their order.
    func setFeedbackdProfile(_ profile: String) {
        profileWriter.yield(profile)
    }

    func run() async {
        let session = open(buses.session, "session", "feedbackd and the screensaver are not followed")
        let lockNeedsLogind = settings.lock == .logind || settings.lock == .auto
        let system = lockNeedsLogind ? open(buses.system, "system", "logind is not followed") : nil
        let inputs = inputs
        let report: @Sendable (PlatformFact) -> Void = { inputs.yield(.platform($0)) }
        let lock = LockFollower(
            source: settings.lock,
            buses: buses,
            sessionBus: session,
            systemBus: system,
            report: report,
            trouble: trouble,
            logger: logger
        )
        let feedbackd =
            settings.feedbackd ? session.map { FeedbackdFollower(bus: $0, report: report, trouble: trouble) } : nil
        let writes = profileWrites
        await withDiscardingTaskGroup { group in
            if let feedbackd {
                group.addTask { await feedbackd.run() }
                group.addTask {
                    for await profile in writes { await feedbackd.setProfile(profile) }
                }
            }
            group.addTask { await lock.run() }
            // The followers run until the daemon shuts down (or their bus goes away). Closing the connections
            // first fails the calls still waiting for an answer at once: a frozen bus does not hold up the exit.
            try? await gracefulShutdown()
            session?.close()
            system?.close()
            group.cancelAll()
        }
    }

    private func open(_ address: String?, _ which: String, _ consequence: String) -> DBusConnection? {
        guard let address else { return nil }
        do {
            return try DBusConnection(.address(address))
        } catch {
            logger.warning("no \(which) bus at \(address) (\(error)): \(consequence)")
            return nil
        }
    }
}
