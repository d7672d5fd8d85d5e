import AudioSessionTestSupport
import Testing

@testable import PulseBackend

/// The retains handed to libpulse as callback context are all given back by `close()`.
@Suite("Lifetimes", .timeLimit(.minutes(4)))
struct PulseLifetimeTests {
    @Test func closeReleasesTheContextAndStreamCores() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            weak let contextCore = try connection.core("test")
            weak let mainloop = contextCore?.mainloop
            var stream: PulsePlaybackStream? = try await PulsePlaybackStream.open(
                server: server.server,
                name: "short-lived",
                properties: [:]
            )
            weak let streamCore = stream?.core
            _ = try await connection.sinkInputs()
            #expect(contextCore != nil && streamCore != nil)

            stream?.close()
            stream = nil
            connection.close()
            #expect(contextCore == nil)
            #expect(mainloop == nil)
            #expect(streamCore == nil)
        }
    }

    @Test func droppingAConnectionWithoutCloseFreesIt() async throws {
        try await withPrivatePulseServer { server in
            var connection: PulseConnection? = try await connected(to: server)
            weak let contextCore = try connection?.core("test")
            _ = try await connection?.serverInfo()
            connection = nil
            #expect(contextCore == nil)
        }
    }

    @Test func closingWithManyRequestsInFlightResumesEveryOneOnce() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            let outcomes = try await withTimeout(10, "every request to finish") {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for request in 0..<400 {
                        group.addTask {
                            if request == 200 { connection.close() }
                            do {
                                _ = try await connection.sinkInputs()
                                return true
                            } catch let error as PulseError {
                                #expect(error.code == .badState)
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
            }
            #expect(outcomes.count == 400)
            #expect(outcomes.contains(false))
        }
    }
}
