import Locking
import AudioSessionTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// 500 clients connect at once and every one is answered: the listen backlog holds them all until the daemon
/// accepts them.
@Suite(.timeLimit(.minutes(3))) struct ConnectionBurstTests {
    @Test func fiveHundredClientsConnectingAtOnceAreEachAnswered() async throws {
        let daemon = try await BareDaemon(name: "burst")
        defer { daemon.stop() }
        // "At once" for the daemon: it is stopped (SIGSTOP) while they connect, so it accepts none of them until
        // every one is queued. A connection the backlog cannot hold is refused at once (EAGAIN without blocking).
        kill(daemon.pid, SIGSTOP)
        let (clients, refused) = try await onThread {
            var clients: [RawSocketClient] = []
            var refused = 0
            for _ in 0..<500 {
                do {
                    clients.append(try RawSocketClient(path: daemon.socket, blocking: false))
                } catch RawSocketError.refused {
                    refused += 1
                }
            }
            return (UncheckedSendableBox(clients), refused)
        }
        kill(daemon.pid, SIGCONT)
        #expect(refused == 0, "\(refused) of 500 connections refused")

        let answered = try await onThread {
            for (index, client) in clients.value.enumerated() {
                _ = try client.write("{\"id\":\(index),\"op\":\"hello\",\"app\":\"burst-\(index)\"}\n")
            }
            return clients.value.enumerated().filter { index, client in
                let line = (try? client.readLines(1, seconds: 60))?.first ?? ""
                return line.contains("\"id\":\(index),\"ok\":true")
            }.count
        }
        #expect(answered == clients.value.count)
        #expect(answered == 500)
    }
}

/// Hands a value to another thread that is the only one to use it meanwhile.
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
