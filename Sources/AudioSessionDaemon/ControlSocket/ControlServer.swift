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
    /// Open connections, closed on shutdown so that no client keeps the daemon from exiting; nil once shutdown
    /// has closed them, so that a connection still being set up then is closed at once instead of kept.
    private let connections = Locked<[ClientID: any Channel]?>([:])
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let outboxes: Outboxes
    private let logger: Logger
    private let nextClient = Atomic<Int>(1)
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
        self.inputs = inputs
        self.outboxes = outboxes
        self.logger = logger
        self.ready = ready
    }

    func run() async throws {
        let backlog = Self.listenBacklog
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: backlog)
            // A client that closes its sending side after its requests still reads their replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let server: NIOAsyncChannel<NIOAsyncChannel<LineFrame, ByteBuffer>, Never>
        if let listeningSocket {
            let name = try SystemdListeningSocket.check(listeningSocket)
            server = try await bootstrap.bind(listeningSocket, childChannelInitializer: Self.lineChannel)
            logger.info("listening on \(name) (passed by systemd)")
        } else {
            try Self.prepareDirectory(for: path, group: group)
            try Self.checkNoDaemonAnswers(at: path, logger: logger)
            server = try await bootstrap.bind(
                unixDomainSocketPath: path,
                cleanupExistingSocketFile: true,
                childChannelInitializer: Self.lineChannel
            )
            try Self.setPermissions(of: path, mode: mode, group: group)
            logger.info("listening on \(path)")
            if backlog < 512 {
                logger.notice(
                    "the kernel lets at most \(backlog) connections wait to be accepted (net.core.somaxconn); more at once are refused"
                )
            }
        }
        ready?()
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
            let open = self.connections.withLock { connections in
                defer { connections = nil }
                return Array((connections ?? [:]).values)
            }
            for channel in open { channel.close(promise: nil) }
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

    /// A connection reads newline-delimited frames and writes byte buffers.
    private static func lineChannel(_ channel: any Channel) -> EventLoopFuture<NIOAsyncChannel<LineFrame, ByteBuffer>> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder()))
            return try NIOAsyncChannel<LineFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
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

    private func serve(_ connection: NIOAsyncChannel<LineFrame, ByteBuffer>) async {
        let peer: ClientPeer
        do {
            peer = try await PeerCredentials.of(connection.channel)
        } catch {
            // A client that connects and hangs up at once (a check that the daemon listens) is gone before its
            // credentials are read: NIO has closed the channel ("file descriptor already closed"). Not a fault.
            if connection.channel.isActive {
                logger.warning("refused a connection: its peer's credentials cannot be read: \(error)")
            } else {
                logger.debug("a client hung up before it was served")
            }
            try? await connection.channel.close()
            return
        }
        let client = ClientID(rawValue: nextClient.add(1, ordering: .relaxed).oldValue)
        logger.debug("\(client) connected: pid \(peer.processID), uid \(peer.userID), \(peer.processName)")
        let channel = connection.channel
        let flow = ConnectionFlow { [logger] unsentBytes in
            logger.warning(
                "\(client) (pid \(peer.processID), uid \(peer.userID), \(peer.processName)) disconnected: it has not read \(unsentBytes) bytes of replies and events (at most \(ConnectionBudget.unsentLimit)); its session ends as if it had closed the connection"
            )
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in flow.end() }
        outboxes.register(client, flow)
        let shuttingDown = connections.withLock { connections in
            connections?[client] = channel
            return connections == nil
        }
        if shuttingDown { channel.close(promise: nil) }
        inputs.yield(.clientConnected(client, peer))
        do {
            try await connection.executeThenClose { inbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Each line is in the kernel's socket buffer before the next is written, and before the
                    // connection is closed.
                    group.addTask {
                        defer { flow.end() }
                        while let line = await flow.nextLine() {
                            try await channel.writeAndFlush(line.bytes).get()
                            flow.written(line)
                        }
                    }
                    for try await frame in inbound {
                        guard let (input, bytes) = self.input(from: frame, of: client) else { continue }
                        guard await flow.admit(requestOf: bytes) else { break }
                        self.inputs.yield(input)
                    }
                    // The client closed its sending side (or the connection is over): its replies first.
                    await flow.drainAfterLastRequest()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("\(client) closed: \(error)")
        }
        connections.withLock { _ = $0?.removeValue(forKey: client) }
        outboxes.remove(client)
        inputs.yield(.clientDisconnected(client))
    }

    /// The input a line becomes, and its length; nil for a blank line, which is ignored.
    private func input(from frame: LineFrame, of client: ClientID) -> (DaemonInput, Int)? {
        switch frame {
        case .line(let buffer):
            let bytes = buffer.readableBytesView
            guard !bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return nil }
            do {
                return (.request(client, try Request.decode(line: bytes)), bytes.count)
            } catch {
                return (.badRequest(client, error), bytes.count)
            }
        case .oversized(let bytes):
            let error = ProtocolError(
                .messageTooLarge,
                "a message is at most \(Request.maximumLineBytes) bytes; this one is \(bytes)"
            )
            return (.badRequest(client, error), 0)
        }
    }
}
