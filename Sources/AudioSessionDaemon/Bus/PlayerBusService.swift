import AudioSessionDaemonCore
import Locking
import DBusBackend
import Logging
import ServiceLifecycle

/// The media players on the session bus (MPRIS, POLICY section 6b), as facts for the policy loop: each name
/// `org.mpris.MediaPlayer2.*` with its process, its `PlaybackStatus`, its going away; and the commands the
/// policy sends them, answered or not within their timeout. The core does the matching and deciding
/// (`DaemonCore+Players.swift`); this is only the bus's side.
final class PlayerBusService: Service, PlayerDriver {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// How long a question to the bus daemon or a player (its process, its status) may take; a player that is
    /// stopped must not hold up the others.
    static let questionTimeout = Duration.seconds(2)

    private let connection: DBusConnection
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let logger: Logger
    private let commands: AsyncStream<(PlayerCommand, String, Int)>
    private let commandsContinuation: AsyncStream<(PlayerCommand, String, Int)>.Continuation
    /// The players' unique names, to tell whose `PropertiesChanged` a signal is (signals carry the unique name).
    private let owners = Locked([String: String]())

    init(connection: DBusConnection, inputs: AsyncStream<DaemonInput>.Continuation, logger: Logger) {
        self.connection = connection
        self.inputs = inputs
        self.logger = logger
        (commands, commandsContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The service on the session bus at `address`; nil when there is none: players are then muted as the
    /// unaware apps they are (section 6). `Daemon.run` says so when no session bus is named; one named that
    /// cannot be reached is said here, once.
    static func onSessionBus(
        _ address: String?, inputs: AsyncStream<DaemonInput>.Continuation, logger: Logger
    ) -> PlayerBusService? {
        guard let address else { return nil }
        do {
            return PlayerBusService(connection: try DBusConnection(.address(address)), inputs: inputs, logger: logger)
        } catch {
            logger.notice("no session bus at \(address) (\(error)): media players are not paused, they are muted as unaware apps")
            return nil
        }
    }

    func send(_ command: PlayerCommand, to busName: String, timeoutMs: Int) {
        commandsContinuation.yield((command, busName, timeoutMs))
    }

    func run() async {
        do {
            // Listen first, then list: a player that comes in between is heard of twice, which is harmless.
            let owners = try await connection.nameOwnerChanges()
            let statuses = try await connection.propertiesChanges(path: Self.objectPath, interface: Self.playerInterface)
            await withDiscardingTaskGroup { group in
                group.addTask { await self.follow(owners) }
                group.addTask { await self.follow(statuses) }
                group.addTask { await self.carryOut() }
                try? await gracefulShutdown()
                group.cancelAll()
            }
        } catch {
            logger.warning("media players on the session bus are not followed (\(error)): they are muted as unaware apps")
            try? await gracefulShutdown()
        }
        commandsContinuation.finish()
        connection.close()
    }

    /// The players there now, then each change, in one task: a player's going is always taken after its coming.
    private func follow(_ changes: AsyncStream<DBusNameOwnerChange>) async {
        do {
            for name in try await connection.listNames() where PlayerTable.isPlayerName(name) { await found(name) }
        } catch {
            logger.warning("cannot list the media players on the session bus: \(error)")
        }
        for await change in changes.cancelOnGracefulShutdown() where PlayerTable.isPlayerName(change.name) {
            if change.oldOwner != nil {
                owners.withLock { $0[change.name] = nil }
                inputs.yield(.player(.vanished(busName: change.name)))
            }
            if change.newOwner != nil { await found(change.name) }
        }
    }

    private func follow(_ changes: AsyncStream<DBusPropertiesChange>) async {
        for await change in changes.cancelOnGracefulShutdown() {
            guard let value = change.changed["PlaybackStatus"]?.string, let status = PlaybackStatus(rawValue: value)
            else { continue }
            let names = owners.withLock { $0.filter { $0.value == change.sender }.keys.sorted() }
            for name in names { inputs.yield(.player(.playbackStatus(busName: name, status))) }
        }
    }

    /// A new player: its process from the bus daemon (not from the player), then its status.
    private func found(_ name: String) async {
        do {
            guard let owner = try await connection.nameOwner(name, timeout: Self.questionTimeout) else { return }
            let processID = try await connection.unixProcessID(of: name, timeout: Self.questionTimeout)
            owners.withLock { $0[name] = owner }
            inputs.yield(.player(.appeared(busName: name, processID: Int32(bitPattern: processID))))
            logger.debug("media player \(name) (\(owner), process \(processID))")
        } catch {
            logger.info("media player \(name) not followed: \(error)")
            return
        }
        // Asked of the player itself, which may be slow or stopped: on the side, so that no other name waits.
        Task {
            do {
                let value = try await connection.property(
                    destination: name, path: Self.objectPath, interface: Self.playerInterface, name: "PlaybackStatus",
                    timeout: Self.questionTimeout)
                if let status = value.string.flatMap(PlaybackStatus.init(rawValue:)) {
                    inputs.yield(.player(.playbackStatus(busName: name, status)))
                }
            } catch {
                logger.debug("media player \(name): no PlaybackStatus: \(error)")
            }
        }
    }

    /// Each command on its own, so that a player that does not answer holds up no other. It goes to the
    /// connection that owned the name when the player was found: a process that took the name since is not
    /// the one whose stream the daemon matched (the call then fails, and the player is given up on, P6).
    private func carryOut() async {
        await withDiscardingTaskGroup { group in
            for await (command, name, timeoutMs) in commands.cancelOnGracefulShutdown() {
                let destination = owners.withLock { $0[name] } ?? name
                group.addTask {
                    do throws(DBusError) {
                        _ = try await self.connection.call(
                            destination: destination, path: Self.objectPath, interface: Self.playerInterface,
                            member: command.rawValue, timeout: .milliseconds(timeoutMs))
                        self.inputs.yield(.player(.answered(busName: name, command)))
                    } catch .timedOut {
                        self.inputs.yield(.player(.failed(busName: name, command, reason: "no answer within \(timeoutMs) ms")))
                    } catch {
                        self.inputs.yield(.player(.failed(busName: name, command, reason: "\(error)")))
                    }
                }
            }
        }
    }
}
