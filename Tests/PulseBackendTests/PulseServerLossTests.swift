import AudioSessionTestSupport
import PulseBackend
import Testing

@Suite("Losing the server", .timeLimit(.minutes(4)))
struct PulseServerLossTests {
    @Test func killingTheServerDisconnectsAndFailsPendingAndLaterCalls() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let recorder = EventRecorder(connection)
            let stream = try await PulsePlaybackStream.open(server: server.server, name: "orphan", properties: [:])
            defer { stream.close() }

            // A frozen server never answers, so this request is still pending when the server dies.
            server.freeze()
            let pending = Task { try await connection.sinkInputs() }
            try await Task.sleep(for: .milliseconds(100))
            server.kill()

            // Timeouts well under libpulse's own 30 s, with room for a loaded machine.
            let failure = await #expect(throws: PulseError.self) {
                try await withTimeout(10, "the pending request to fail") { try await pending.value }
            }
            #expect(failure?.code == .connectionTerminated)
            try await recorder.waitFor("disconnected") {
                if case .disconnected = $0 { true } else { false }
            }
            try await recorder.waitForEnd()

            let later = await #expect(throws: PulseError.self) {
                try await withTimeout(10, "a later call to fail") { try await connection.serverInfo() }
            }
            #expect(later?.code == .connectionTerminated)
            await #expect(throws: PulseError.self) {
                try await withTimeout(10, "cork to fail") { try await stream.cork(true) }
            }
            var afterLoss = connection.events.makeAsyncIterator()
            if case .disconnected = await afterLoss.next() {
            } else {
                Issue.record("late subscribers should see .disconnected")
            }
            connection.close()
            connection.close()
        }
    }
}
