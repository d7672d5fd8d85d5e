import Locking
import PulseBackend
import Testing

/// `apply` (a turn's writes sent at once) and `listen` (events on libpulse's thread), the daemon's hot path.
@Suite("Changes sent at once, events as they are read", .timeLimit(.minutes(4)))
struct PulseBatchTests {
    @Test func applyMakesEveryChangeInOrderAndAnswersEachOne() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            let game = try await PulsePlaybackStream.open(server: server.server, name: "game", properties: [:])
            defer { game.close() }
            let headphones = try #require(try await connection.sinks().first { $0.name == "headphones" })
            let quiet = PulseVolume(uniform: PulseVolume.norm / 4, channels: 2)
            let half = PulseVolume(uniform: PulseVolume.norm / 2, channels: 2)

            let answers = await connection.apply([
                .sinkInputVolume(music.sinkInputIndex, quiet),
                .sinkInputMute(game.sinkInputIndex, true),
                .sinkInputMute(9999, true),
                // The same stream's second volume wins: the server takes one connection's requests in order.
                .sinkInputVolume(music.sinkInputIndex, half),
                .moveSinkInput(game.sinkInputIndex, toSink: headphones.index),
            ])

            #expect(answers.count == 5)
            #expect(answers[0] == nil && answers[1] == nil && answers[3] == nil && answers[4] == nil, "\(answers)")
            #expect(answers[2]?.code == .noEntity, "\(answers)")
            let musicNow = try #require(try await connection.sinkInput(music.sinkInputIndex))
            let gameNow = try #require(try await connection.sinkInput(game.sinkInputIndex))
            #expect(musicNow.volume == half)
            #expect(gameNow.muted && gameNow.sinkIndex == headphones.index)
            #expect(await connection.apply([]).isEmpty)
        }
    }

    @Test func applyAfterCloseAnswersEveryChangeWithTheError() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            connection.close()
            let answers = await connection.apply([.sinkInputMute(0, true), .sourceOutputMute(0, true)])
            #expect(answers.count == 2 && answers.allSatisfy { $0?.code == .badState }, "\(answers)")
        }
    }

    @Test func listenHandsOverEveryEventThenTheLoss() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let heard = Locked<[PulseEvent]>([])
            connection.listen { event in heard.withLock { $0.append(event) } }
            let stream = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            let index = stream.sinkInputIndex
            try await eventually("the stream's new event") {
                heard.withLock { $0.contains(.changed(.sinkInput, .new, index: index)) }
            }
            stream.close()
            try await eventually("the stream's remove event") {
                heard.withLock { $0.contains(.changed(.sinkInput, .remove, index: index)) }
            }
            server.kill()
            try await eventually("the loss") {
                heard.withLock { events in events.contains { if case .disconnected = $0 { true } else { false } } }
            }
        }
    }
}
