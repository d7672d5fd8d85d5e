import NIOCore
import Testing

@testable import AudioSessionDaemon

/// The control socket's line splitting, without a socket: lines split across reads, several in one read, a
/// carriage return before the newline, a line over the limit skipped across reads (its length reported), and a
/// last line without its newline once the client has sent everything.
struct LineFrameDecoderTests {
    @Test func linesAreSplitWhereverTheReadsEnd() {
        var decoder = LineFrameDecoder(limit: 16)
        var frames: [String] = []
        let reads = ["{\"op\":", "\"status\"}\n\n{\"id\":1}\r", "\nabcdefghijklmnop", "qrstuvwxyz", "0123\nlast"]
        for read in reads {
            decoder.decode(ByteBuffer(string: read)) { frames.append(Self.text($0)) }
        }
        #expect(frames == ["{\"op\":\"status\"}", "", "{\"id\":1}", "oversized 30"])
        decoder.finish { frames.append(Self.text($0)) }
        #expect(frames.last == "last")
        // Nothing is kept once everything was handed over.
        var after: [String] = []
        decoder.finish { after.append(Self.text($0)) }
        #expect(after.isEmpty)
    }

    @Test func anOverLongLineCutByTheEndIsNotALine() {
        var decoder = LineFrameDecoder(limit: 4)
        var frames: [String] = []
        decoder.decode(ByteBuffer(string: "ok\nmuch too long")) { frames.append(Self.text($0)) }
        decoder.finish { frames.append(Self.text($0)) }
        #expect(frames == ["ok"])
    }

    static func text(_ frame: LineFrame) -> String {
        switch frame {
        case .line(let buffer): String(buffer: buffer)
        case .oversized(let bytes): "oversized \(bytes)"
        }
    }
}
