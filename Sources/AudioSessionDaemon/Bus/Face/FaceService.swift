import AudioSessionDaemonCore
import AudioSessionProtocol
import DBusBackend
import FoundationEssentials
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Which bus the daemon's D-Bus interface is served on (docs/DBUS.md, "The daemon's D-Bus interface").
public enum DBusFaceBus: Sendable, Equatable {
    /// Not served.
    case none
    /// The session bus of `DaemonOptions.buses` (`--session-bus`, else the environment's).
    case session
    /// The system bus of `DaemonOptions.buses`, for a daemon of the whole machine (its user must be let own the
    /// name by a bus policy).
    case system
    /// A bus at this address (`unix:path=...`; a private bus in the tests).
    case address(String)

    /// `session`, `system`, `none`, or an address (anything with a `:`, `unix:path=/run/x/bus`).
    public init?(argument: String) {
        switch argument {
        case "session": self = .session
        case "system": self = .system
        case "none": self = .none
        default:
            guard argument.contains(":") else { return nil }
            self = .address(argument)
        }
    }

    var words: String {
        switch self {
        case .none: "no bus"
        case .session: "the session bus"
        case .system: "the system bus"
        case .address(let address): "the bus at \(address)"
        }
    }
}

/// The daemon's face on D-Bus, for shells and settings panels: the switch, the lock, the outputs, the sessions
/// and the last decisions at `org.audiosessiond.Daemon1`, answered by the policy loop through `FaceClient`,
/// with `PropertiesChanged` after every change. Without the bus the daemon runs as before and says so once.
final class FaceService: Service {
    private let bus: DBusFaceBus
    private let buses: PlatformBuses
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let logger: Logger

    init(
        bus: DBusFaceBus,
        buses: PlatformBuses,
        inputs: AsyncStream<DaemonInput>.Continuation,
        outboxes: Outboxes,
        logger: Logger
    ) {
        self.bus = bus
        self.buses = buses
        self.inputs = inputs
        self.outboxes = outboxes
        self.logger = logger
    }

    func run() async {
        let address: String
        switch bus {
        case .none: return await waitForShutdown()
        case .session:
            // No session bus: the daemon's line about it says the interface is not served too (Daemon.run).
            guard let session = buses.session else { return await waitForShutdown() }
            address = session
        case .system:
            guard let system = buses.system else {
                logger.notice(
                    "no D-Bus interface: no system bus (--system-bus none, or none found); the daemon runs as before, controlled through its socket"
                )
                return await waitForShutdown()
            }
            address = system
        case .address(let given): address = given
        }
        let connection: DBusConnection
        do {
            connection = try DBusConnection(.address(address))
        } catch {
            logger.notice(
                "no D-Bus interface: \(bus.words) cannot be reached (\(error)); the daemon runs as before, controlled through its socket"
            )
            return await waitForShutdown()
        }
        defer { connection.close() }
        let client = FaceClient(inputs: inputs, outboxes: outboxes)
        client.connect()
        await withDiscardingTaskGroup { group in
            group.addTask { await client.deliver() }
            if let (served, owners) = await serve(on: connection, client) {
                group.addTask { await self.signalChanges(on: connection, client, from: served) }
                group.addTask {
                    // The stream ends when the connection does: the bus went away (or the daemon is stopping).
                    for await _ in owners {}
                    guard !Task.isCancelled else { return }
                    self.logger.warning(
                        "the D-Bus interface is gone: \(self.bus.words) went away; the daemon runs on, controlled through its socket"
                    )
                }
            }
            await waitForShutdown()
            client.stop()
            group.cancelAll()
        }
    }

    /// Serves the object and takes the name; the status the properties start from and the name's owner changes
    /// (a stream that ends with the connection), or nil when not served.
    private func serve(
        on connection: DBusConnection,
        _ client: FaceClient
    ) async -> (StatusBody, AsyncStream<DBusNameOwnerChange>)? {
        let calls = FaceCalls(client: client, ownerUID: getuid())
        do {
            // The object first: a call that comes as soon as the name is ours finds it.
            _ = try await connection.serve(path: FaceInterface.path) { await calls.answer($0) }
            // Before the name is taken: once the name is seen on the bus, the end of the bus is seen too.
            let owners = try await connection.nameOwnerChanges(for: FaceInterface.busName)
            let watched = await client.send(Request(.watch))
            guard let status = watched.result?.status else { return nil }
            let result = try await connection.requestName(FaceInterface.busName)
            guard result == .primaryOwner || result == .alreadyOwner else {
                logger.warning(
                    "no D-Bus interface: \(FaceInterface.busName) on \(bus.words) belongs to another program (another audiosessiond?); the daemon runs on, controlled through its socket"
                )
                return nil
            }
            logger.info("D-Bus interface \(FaceInterface.busName) at \(FaceInterface.path) on \(bus.words)")
            return (status, owners)
        } catch DBusError.remote(name: FaceCalls.accessDenied, let message) {
            // A system bus grants a name only to whom a policy file names (docs/DBUS.md, "Which bus").
            logger.warning(
                "no D-Bus interface: the bus's policy does not let user \(getuid()) own \(FaceInterface.busName) on \(bus.words) (\(message)); install Config/dbus/\(FaceInterface.busName).conf in the bus's system.d (make install does) and run the daemon as user audiosessiond or root; the daemon runs on, controlled through its socket"
            )
            return nil
        } catch {
            logger.notice(
                "no D-Bus interface: \(FaceInterface.busName) cannot be served on \(bus.words) (\(error)); the daemon runs on, controlled through its socket"
            )
            return nil
        }
    }

    /// `PropertiesChanged` with the properties that differ from the last ones told, after each status change.
    private func signalChanges(on connection: DBusConnection, _ client: FaceClient, from start: StatusBody) async {
        var told = FaceInterface.properties(of: start)
        for await status in client.statuses {
            let now = FaceInterface.properties(of: status)
            let changed = now.filter { told[$0.key] != $0.value }
            guard !changed.isEmpty else { continue }
            told = now
            do {
                try await connection.emitPropertiesChanged(path: FaceInterface.path, interface: FaceInterface.name, changed: changed)
            } catch {
                // The bus went away: said once where the name's changes end.
                logger.debug("PropertiesChanged not sent: \(error)")
                return
            }
        }
    }

    private func waitForShutdown() async {
        try? await gracefulShutdown()
    }
}
