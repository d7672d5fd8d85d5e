import AudioSessionProtocol
import NIOCore

/// One line from a client, or the length of one that was too long to read.
enum LineFrame: Sendable {
    case line(ByteBuffer)
    case oversized(bytes: Int)
}

/// Splits a connection's byte stream at newlines, as its reads come. A line longer than the limit is skipped to
/// its end without being kept, so a client cannot make the daemon hold an unbounded buffer; it is reported as
/// `oversized`. A value inside the connection's handler, holding nothing between lines: an idle connection
/// costs no buffer of its own (NIO's `ByteToMessageHandler`, which did this before, cost a handler and two
/// queues on every connection, about a quarter of a kilobyte).
struct LineFrameDecoder {
    let limit: Int
    /// The start of a line whose newline has not come yet.
    private var partial: ByteBuffer?
    /// How much of an over-long line was skipped so far, while its newline has not come.
    private var skipped: Int?

    init(limit: Int = Request.maximumLineBytes) { self.limit = limit }

    /// Hands `take` each line that `read` ends, in order; keeps the start of a line it does not end.
    mutating func decode(_ read: ByteBuffer, _ take: (LineFrame) -> Void) {
        var buffer = read
        if var started = partial.take() {
            started.writeImmutableBuffer(read)
            buffer = started
        }
        while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readerIndex
            if let alreadySkipped = skipped {
                buffer.moveReaderIndex(forwardBy: length + 1)
                skipped = nil
                take(.oversized(bytes: alreadySkipped + length))
                continue
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
            take(length > limit ? .oversized(bytes: length) : .line(line))
        }
        if skipped != nil || buffer.readableBytes > limit {
            skipped = (skipped ?? 0) + buffer.readableBytes
        } else if buffer.readableBytes > 0 {
            partial = buffer
        }
    }

    /// The client sent its last bytes: a last line without its newline is still a line (`echo -n '{...}' | nc
    /// -U` works).
    mutating func finish(_ take: (LineFrame) -> Void) {
        if let rest = partial.take(), skipped == nil { take(.line(rest)) }
        skipped = nil
    }
}
