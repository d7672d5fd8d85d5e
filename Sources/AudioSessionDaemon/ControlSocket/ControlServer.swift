import AudioSessionDaemonCore
import AudioSessionProtocol
import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket: newline-delimited JSON on a Unix socket (mode 0600). Each connection's lines become
/// daemon inputs; its outbox is written back in order. Under socket activation it serves the socket systemd
/// passed, which systemd owns: its path, mode and group are the .socket unit's, and it is not removed at exit.
final class ControlServer: Service {
    private let path: String
    /// The listening socket systemd passed (`LISTEN_FDS`), used instead of binding `path`.
    private let listeningSocket: Int32?
    private let mode: Int
    private let group: String?
    private let shared: Shared
    private let ready: (@Sendable () -> Void)?

    init(
        path: String,
        mode: Int = 0o600,
        group: String? = nil,
        listeningSocket: Int32? = nil,
        inputs: AsyncStream<DaemonInput>.Continuation,
        outboxes: Outboxes,
        logger: Logger,
        ready: (@Sendable () -> Void)? = nil
    ) {
        self.path = path
        self.mode = mode
        self.group = group
        self.listeningSocket = listeningSocket
        self.shared = Shared(inputs: inputs, outboxes: outboxes, logger: logger)
        self.ready = ready
    }

    private var logger: Logger { shared.logger }

    func run() async throws {
        let backlog = Self.listenBacklog
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: backlog)
            // A client that closes its sending side after its requests still reads their replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // Each connection keeps its receive buffer between reads: sized for a request line (a few hundred
            // bytes), not NIO's 2 KB, since a thousand idle clients each hold one (a longer line grows it).
            .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
            .childChannelInitializer { [shared] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ControlConnectionHandler(server: shared))
                }
            }
        let server: any Channel
        if let listeningSocket {
            let name = try SystemdListeningSocket.check(listeningSocket)
            server = try await bootstrap.withBoundSocket(listeningSocket).get()
            logger.info("listening on \(name) (passed by systemd)")
        } else {
            try Self.prepareDirectory(for: path, group: group)
            try Self.checkNoDaemonAnswers(at: path, logger: logger)
            server = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            try Self.setPermissions(of: path, mode: mode, group: group)
            logger.info("listening on \(path)")
            if backlog < 512 {
                logger.notice(
                    "the kernel lets at most \(backlog) connections wait to be accepted (net.core.somaxconn); more at once are refused"
                )
            }
        }
        ready?()
        // Served until a graceful shutdown, or the task's cancellation (another service failed), closes it all.
        let stop: @Sendable () -> Void = { [shared] in
            server.close(promise: nil)
            shared.closeAll()
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await server.closeFuture.get()
            } onGracefulShutdown: {
                stop()
            }
        } onCancel: {
            stop()
        }
        if listeningSocket == nil { unlink(path) }
    }

    /// A socket file that still answers belongs to a daemon that is running: taking its path would leave that
    /// daemon's clients talking to an orphan, so this one refuses to start. One that refuses connections was left
    /// by a daemon that ended without removing it (a crash, SIGKILL): the bind replaces it.
    static func checkNoDaemonAnswers(at path: String, logger: Logger) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else {
            throw DaemonError("\(path) exists and is not a socket; remove it or choose another --socket")
        }
        if let probe = try? LineSocket(path: path) {
            probe.close()
            throw DaemonError(
                "another audiosessiond is already listening on \(path); stop it first, or start this one with another --socket"
            )
        }
        logger.notice("\(path) was left by a daemon that did not end cleanly; replacing it")
    }

    /// The socket's mode (0600 for one user), and its group for a system-wide daemon (0660 and a group).
    static func setPermissions(of path: String, mode: Int, group: String?) throws {
        if let group {
            guard let entry = getgrnam(group) else { throw DaemonError("socket group '\(group)' does not exist") }
            guard chown(path, getuid(), entry.pointee.gr_gid) == 0 else {
                throw DaemonError("cannot give \(path) to group \(group): errno \(errno)")
            }
        }
        guard chmod(path, mode_t(mode)) == 0 else {
            throw DaemonError("cannot set the mode of \(path) to \(String(mode, radix: 8)): errno \(errno)")
        }
    }

    /// The receive buffer sizes of a connection: 256 bytes first, up to a whole line's limit.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(
        minimum: 64,
        initial: 256,
        maximum: Request.maximumLineBytes
    )

    /// How many connections may wait to be accepted: as many as the kernel allows (`net.core.somaxconn`, 4096
    /// by default since Linux 5.4), so that a burst of clients is queued, not refused, while the daemon is busy.
    static var listenBacklog: Int32 {
        let text = (try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8)) ?? ""
        return Int32(text.trimmingWhitespace) ?? 4096
    }

    /// The socket's folder is the daemon's own (0700) and no one else can change it (`RuntimeDirectory`), so no
    /// one else can reach the socket even for the moment before its own mode is set, nor replace it; with a
    /// socket group, the group may enter it (0750).
    static func prepareDirectory(for path: String, group: String?) throws {
        try RuntimeDirectory.prepare(forSocket: path)
        let directory = path.parentDirectoryPath
        guard !directory.isEmpty, let group else { return }
        guard let entry = getgrnam(group) else { throw DaemonError("socket group '\(group)' does not exist") }
        guard chown(directory, getuid(), entry.pointee.gr_gid) == 0, chmod(directory, 0o750) == 0 else {
            throw DaemonError("cannot open \(directory) to group \(group): errno \(errno)")
        }
    }

    /// What every connection's handler shares with the server: the handlers run on NIO's event loops.
    final class Shared: Sendable {
        let inputs: AsyncStream<DaemonInput>.Continuation
        let outboxes: Outboxes
        let logger: Logger
        private let nextClient = Atomic<Int>(1)
        /// Open connections, closed on shutdown so that no client keeps the daemon from exiting; nil once
        /// shutdown has closed them, so that a connection still being set up then is closed at once.
        private let connections = Locked<[ClientID: any Channel]?>([:])

        init(inputs: AsyncStream<DaemonInput>.Continuation, outboxes: Outboxes, logger: Logger) {
            self.inputs = inputs
            self.outboxes = outboxes
            self.logger = logger
        }

        func newClient() -> ClientID {
            ClientID(rawValue: nextClient.add(1, ordering: .relaxed).oldValue)
        }

        /// Keeps an open connection; false when the server is shutting down (the caller closes it).
        func admit(_ client: ClientID, _ channel: any Channel) -> Bool {
            connections.withLock { connections in
                connections?[client] = channel
                return connections != nil
            }
        }

        func forget(_ client: ClientID) {
            connections.withLock { _ = $0?.removeValue(forKey: client) }
        }

        /// Closes every open connection, and any that opens after.
        func closeAll() {
            let open = connections.withLock { connections in
                defer { connections = nil }
                return Array((connections ?? [:]).values)
            }
            for channel in open { channel.close(promise: nil) }
        }
    }
}
