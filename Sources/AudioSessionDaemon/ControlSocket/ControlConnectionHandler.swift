import AudioSessionDaemonCore
import AudioSessionProtocol
import DequeModule
import Logging
import NIOCore

/// One control-socket connection, as a handler on its channel's event loop: it learns who the peer is, turns
/// each line into a daemon input while the connection's budget has room (and stops reading the socket while
/// not), and writes the outbox's lines one at a time, each in the kernel's socket buffer before the next. No
/// task of its own: a connection costs its channel and this, a few kilobytes (a task per connection, as the
/// connection was once served, cost three times as much in task memory alone; docs/BENCHMARKS.md).
///
/// Everything here runs on the channel's event loop; the policy loop reaches it only through `ConnectionFlow`,
/// whose `wake` brings it back to that loop.
final class ControlConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ControlServer.Shared
    private var context: ChannelHandlerContext?
    /// Set once the peer's credentials are read and the client is registered.
    private var client: ClientID?
    private var flow: ConnectionFlow?
    /// The bytes read, split into lines.
    private var lines = LineFrameDecoder()
    /// Requests read and not taken yet (the budget had no room), in order, with their lengths.
    private var waiting = Deque<(input: DaemonInput, bytes: Int)>()
    /// The socket was not read when NIO asked, since requests wait: read it once they are taken.
    private var readHeld = false
    private var writing = false
    /// The client closed its sending side.
    private var inputClosed = false
    private var ended = false

    init(server: ControlServer.Shared) {
        self.server = server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        PeerCredentials.of(context.channel).hop(to: context.eventLoop).whenComplete { result in
            bound.value.started(result)
        }
    }

    private func started(_ result: Result<ClientPeer, any Error>) {
        guard let context, !ended else { return }
        let peer: ClientPeer
        switch result {
        case .success(let known): peer = known
        case .failure(let error):
            // A client that connects and hangs up at once (a check that the daemon listens) is gone before its
            // credentials are read. Not a fault.
            if context.channel.isActive {
                server.logger.warning("refused a connection: its peer's credentials cannot be read: \(error)")
            } else {
                server.logger.debug("a client hung up before it was served")
            }
            context.close(promise: nil)
            return
        }
        let client = server.newClient()
        server.logger.debug("\(client) connected: pid \(peer.processID), uid \(peer.userID), \(peer.processName)")
        let channel = context.channel
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let logger = server.logger
        let flow = ConnectionFlow(
            overflowed: { unsentBytes in
                logger.warning(
                    "\(client) (pid \(peer.processID), uid \(peer.userID), \(peer.processName)) disconnected: it has not read \(unsentBytes) bytes of replies and events (at most \(ConnectionBudget.unsentLimit)); its session ends as if it had closed the connection"
                )
                channel.close(promise: nil)
            },
            wake: { eventLoop.execute { bound.value.pump() } }
        )
        self.client = client
        self.flow = flow
        server.outboxes.register(client, flow)
        if !server.admit(client, channel) { context.close(promise: nil) }
        server.inputs.yield(.clientConnected(client, peer))
        pump()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Bytes come only once the client is registered: reading waits for it (`read(context:)`).
        guard !ended, let client else { return }
        lines.decode(unwrapInboundIn(data)) { take($0, of: client) }
        pump()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            if !ended, let client { lines.finish { take($0, of: client) } }
            inputClosed = true
            pump()
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A line read: it waits for the budget's room (a blank line is ignored).
    private func take(_ frame: LineFrame, of client: ClientID) {
        if let request = Self.input(from: frame, of: client) { waiting.append(request) }
    }

    func read(context: ChannelHandlerContext) {
        // Backpressure: requests that wait for room keep the socket unread, so the kernel's buffer fills and the
        // client's writes block.
        if flow == nil || !waiting.isEmpty {
            readHeld = true
        } else {
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
        self.context = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        server.logger.debug("\(client.map { "\($0)" } ?? "a connection") closed: \(error)")
        context.close(promise: nil)
    }

    /// Takes what requests the budget has room for, writes the next line, and closes the connection when it is
    /// done: the flow is over, or the client sent its last request and has every reply.
    private func pump() {
        guard let context, let flow, !ended else { return }
        while let request = waiting.first {
            switch flow.admit(requestOf: request.bytes) {
            case .taken:
                waiting.removeFirst()
                server.inputs.yield(request.input)
            case .wait:
                return writeNext(context, flow)
            case .ended:
                waiting.removeAll()
            }
        }
        if readHeld {
            readHeld = false
            context.read()
        }
        if inputClosed { flow.endInput() }
        writeNext(context, flow)
        if !writing, flow.isDone { context.close(promise: nil) }
    }

    private func writeNext(_ context: ChannelHandlerContext, _ flow: ConnectionFlow) {
        guard !writing, let line = flow.nextLine() else { return }
        writing = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(line.bytes)).whenComplete { result in
            let connection = bound.value
            connection.writing = false
            switch result {
            case .success:
                flow.written(line)
                connection.pump()
            case .failure:
                connection.context?.close(promise: nil)
            }
        }
    }

    /// The connection is gone: its client's session ends.
    private func end() {
        guard !ended else { return }
        ended = true
        waiting.removeAll()
        guard let client, let flow else { return }
        flow.end()
        // The flow's closures hold this handler and the channel: letting go of it frees the connection.
        self.flow = nil
        server.forget(client)
        server.outboxes.remove(client)
        server.inputs.yield(.clientDisconnected(client))
    }

    /// The input a line becomes, and its length; nil for a blank line, which is ignored.
    private static func input(from frame: LineFrame, of client: ClientID) -> (input: DaemonInput, bytes: Int)? {
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
