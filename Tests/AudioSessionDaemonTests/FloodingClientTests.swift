import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Locking
import Testing

@testable import AudioSessionCLI

/// A client that writes requests and never reads its replies is disconnected once the daemon holds a
/// megabyte it has not read; the daemon's memory stays near idle meanwhile, its session ends as if it had
/// gone, and other clients are answered all along. A line over the size limit is answered, not kept.
@Suite(.timeLimit(.minutes(2))) struct FloodingClientTests {
    @Test func aClientThatNeverReadsIsDisconnectedAndTheDaemonsMemoryStaysNearIdle() async throws {
        let daemon = try await BareDaemon(name: "flood")
        defer { daemon.stop() }
        // Warm up: connections, sessions and status replies, so that idle includes what serving costs.
        try await onThread {
            for index in 0..<50 {
                let client = try ControlConnection(path: daemon.socket, readTimeout: .seconds(10))
                var hello = Request(op: .hello)
                hello.app = "warm-up-\(index)"
                _ = try client.result(hello)
                _ = try client.status()
            }
        }
        try await Task.sleep(for: .seconds(1))
        let idle = try #require(residentBytes(of: daemon.pid))

        // A line of 32 MiB is skipped, not kept, and answered `messageTooLarge`; the connection goes on.
        let (tooLarge, afterIt) = try await onThread {
            let client = try RawSocketClient(path: daemon.socket)
            let megabyte = String(repeating: "x", count: 1 << 20)
            for _ in 0..<32 { _ = try client.write(megabyte) }
            _ = try client.write("\n{\"id\":2,\"op\":\"status\"}\n")
            let lines = try client.readLines(2)
            return (lines[0], lines[1])
        }
        #expect(tooLarge.contains("\"code\":\"messageTooLarge\"") && tooLarge.contains("33554432"), "\(tooLarge)")
        #expect(afterIt.contains("\"id\":2,\"ok\":true"), "\(afterIt)")
        let afterLongLine = try #require(residentBytes(of: daemon.pid))

        // The flood: one client after another writes status requests (16 bytes, each answered by some 200) and
        // reads nothing, for 20 s; each connection lasts until the daemon closes it.
        let flood = Flood()
        let flooding = Thread { flood.run(socket: daemon.socket, seconds: 20) }
        flooding.start()
        var peak = afterLongLine
        var answered = 0
        while !flood.finished {
            try await Task.sleep(for: .milliseconds(250))
            peak = max(peak, residentBytes(of: daemon.pid) ?? 0)
            // Another client is answered while the flood goes on.
            if (try? await onThread { try daemon.status() }) != nil { answered += 1 }
        }
        let figures = flood.figures
        let megabytes = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_000_000) }
        print(
            """
            flooding client: idle \(megabytes(idle)), after a 32 MiB line \(megabytes(afterLongLine)), \
            peak during 20 s of flood \(megabytes(peak)) (+\(megabytes(peak - idle))); \
            \(figures.connections) connections, \(figures.disconnected) disconnected by the daemon, \
            \(megabytes(figures.bytesWritten)) of requests written; \(answered) status requests of another \
            client answered meanwhile
            """
        )
        #expect(flood.failure == nil, "\(flood.failure ?? "")")
        #expect(afterLongLine - idle < 4_000_000, "a 32 MiB line is not kept")
        #expect(peak - idle < 20_000_000, "the daemon's memory stays near idle under a flood")
        #expect(figures.disconnected >= 1, "the daemon disconnects a client that does not read")
        #expect(answered >= 10, "other clients are answered during the flood")

        // Said once per connection, with who it was.
        let said = daemon.log.split(separator: "\n").filter { $0.contains("has not read") }
        #expect(said.count >= figures.disconnected && said.count <= figures.connections, "\(said.prefix(3))")
        #expect(said.allSatisfy { $0.contains("pid \(getpid()), uid \(getuid())") }, "\(said.prefix(3))")
        let clients = said.compactMap { line in line.firstMatch(of: /client#\d+/).map { String(line[$0.range]) } }
        #expect(Set(clients).count == said.count, "one line per connection")
    }

    @Test func aFloodingClientsSessionEndsAndTheStreamItDuckedIsAudibleAgain() async throws {
        // A daemon process of its own: the one in this process would share its threads with every other test.
        let daemon = try await BareDaemon(name: "flood-session")
        defer { daemon.stop() }
        let (ducked, closed, audible, sessions) = try await onThread {
            let music = try ControlConnection(path: daemon.socket, readTimeout: .seconds(10))
            var hello = Request(op: .hello)
            hello.app = "music"
            _ = try music.result(hello)
            var category = Request(op: .setCategory)
            category.category = .playback
            _ = try music.result(category)
            _ = try music.result(Request(op: .activate))
            _ = try music.result(Request(op: .subscribe))
            try music.startStream(1)
            let flooder = try RawSocketClient(path: daemon.socket)
            _ = try flooder.write(
                """
                {"id":1,"op":"hello","app":"flood"}
                {"id":2,"op":"setCategory","category":"playback","options":["duckOthers"]}
                {"id":3,"op":"activate"}

                """
            )
            let ducked = try music.waitForEvent(seconds: 10) { $0.event == .streamVerdict && $0.verdict == "ducked" }

            // Requests, never a read, until the daemon closes the connection (at most 15 s).
            let deadline = Date().addingTimeInterval(15)
            let batch = String(repeating: "{\"op\":\"getState\"}\n", count: 1000)
            var open = true
            while open && Date() < deadline { open = try flooder.write(batch) }

            let audible = try music.waitForEvent(seconds: 10) { $0.event == .streamVerdict && $0.verdict == "audible" }
            var sessions: [String] = []
            let deadlineForStatus = Date().addingTimeInterval(10)
            repeat {
                sessions = try daemon.status().sessions.map(\.app)
            } while sessions != ["music"] && Date() < deadlineForStatus
            return (ducked != nil, !open, audible != nil, sessions)
        }
        #expect(ducked, "the flooder's session ducks the music")
        #expect(closed, "the daemon closed the connection of a client that does not read")
        #expect(audible, "the music is not left ducked")
        #expect(sessions == ["music"], "the flooder's session is gone")
        #expect(daemon.log.contains("(pid \(getpid()), uid \(getuid()), "), "\(daemon.log.suffix(2000))")
    }
}

/// Clients that write status requests without reading, one after another, for a while; counts what happened.
private final class Flood: Sendable {
    struct Figures { var connections = 0, disconnected = 0, bytesWritten = 0 }
    private let state = Locked<(figures: Figures, finished: Bool, failure: String?)>((Figures(), false, nil))
    var figures: Figures { state.withLock { $0.figures } }
    var finished: Bool { state.withLock { $0.finished } }
    var failure: String? { state.withLock { $0.failure } }

    func run(socket: String, seconds: Double) {
        defer { state.withLock { $0.finished = true } }
        let end = Date().addingTimeInterval(seconds)
        let batch = String(repeating: "{\"op\":\"status\"}\n", count: 1000)
        do {
            while Date() < end {
                let client = try RawSocketClient(path: socket)
                state.withLock { $0.figures.connections += 1 }
                var open = true
                while open && Date() < end {
                    open = try client.write(batch, seconds: 5)
                    if open { state.withLock { $0.figures.bytesWritten += batch.utf8.count } }
                }
                if !open { state.withLock { $0.figures.disconnected += 1 } }
            }
        } catch {
            state.withLock { $0.failure = "\(error)" }
        }
    }
}
