import AudioSessionProtocol
import NIOCore

/// One line from a client, or the length of one that was too long to read.
enum LineFrame: Sendable {
    case line(ByteBuffer)
    case oversized(bytes: Int)
}

/// Splits the byte stream at newlines. A line longer than the limit is skipped to its end without being kept,
/// so a client cannot make the daemon hold an unbounded buffer; it is reported as `oversized`.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    let limit: Int
    private var skipped: Int?

    init(limit: Int = Request.maximumLineBytes) { self.limit = limit }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if skipped != nil || buffer.readableBytes > limit {
                skipped = (skipped ?? 0) + buffer.readableBytes
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            }
            return .needMoreData
        }
        let length = newline - view.startIndex
        if let alreadySkipped = skipped {
            buffer.moveReaderIndex(forwardBy: length + 1)
            skipped = nil
            context.fireChannelRead(wrapInboundOut(.oversized(bytes: alreadySkipped + length)))
            return .continue
        }
        guard var line = buffer.readSlice(length: length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        let frame: LineFrame = length > limit ? .oversized(bytes: length) : .line(line)
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline is still a line: `echo -n '{...}' | nc -U` works.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 && skipped == nil {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
