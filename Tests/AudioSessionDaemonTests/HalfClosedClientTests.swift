import Locking
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

/// A client that writes its requests and then closes its sending side (`shutdown(SHUT_WR)`, what
/// `nc -N` and `socat` do at the end of their input) gets every reply, then the daemon closes its side.
@Suite(.timeLimit(.minutes(3))) struct HalfClosedClientTests {
    @Test func aClientThatClosesItsSendingSideGetsEveryReplyThenEndOfFile() async throws {
        let (sent, lines, sessionEnded) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let client = try RawSocketClient(path: daemon.socketPath)
                // Five requests: a session, its state, the daemon's status, a line that is not JSON, and a last
                // line without its newline, which the daemon reads when the client closes its side.
                let sent = try client.write(
                    """
                    {"id":1,"op":"hello","app":"half-closed"}
                    {"id":2,"op":"getState"}
                    {"id":3,"op":"status"}
                    not json
                    {"id":5,"op":"getState"}
                    """
                )
                client.closeSendingSide()
                let lines = try client.readToEnd()
                // Its session ended when the connection did.
                let sessionEnded = try daemon.waitForStatus { $0.sessions.allSatisfy { $0.app != "half-closed" } }
                return (sent, lines, sessionEnded)
            }
        }
        #expect(sent)
        let replies = try lines.map { try LineCoding.decodeServerMessage(Array($0.utf8)) }
        let ids: [RequestID?] = replies.compactMap { if case .reply(let reply) = $0 { reply.id } else { nil } }
        #expect(ids == [.number(1), .number(2), .number(3), nil, .number(5)], "\(lines)")
        #expect(lines.count == 5, "one line per request and nothing else: \(lines)")
        #expect(sessionEnded)
    }
}
