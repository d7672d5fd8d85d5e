import DBusBackend
import Logging
import Locking

/// Trouble with a platform service, logged once per kind: a stand-in or a broken service that answers every
/// call with an error must not fill the log.
final class TroubleLog: Sendable {
    private let seen = Locked(Set<String>())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Logs `message` as a warning unless `key` was logged before, or unless `error` says the daemon closed the
    /// bus itself (it is shutting down: the calls still waiting fail, and that is no trouble).
    func once(_ key: String, _ message: @autoclosure () -> String, error: (any Error)? = nil) {
        if case .closed? = error as? DBusError { return }
        guard seen.withLock({ $0.insert(key).inserted }) else { return }
        logger.warning("\(message())")
    }
}
