import PulseBackend
import Testing

/// What the daemon benchmark needs of PulseBackend: many streams on one client, streams pinned to a sink.
@Suite("Stream groups and pinned streams", .timeLimit(.minutes(4)))
struct PulsePlaybackGroupTests {
    @Test func aGroupsStreamsShareOneClientAndEndTogether() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let group = try await PulsePlaybackGroup.connect(server: server.server, application: "many")
            var indices: [UInt32] = []
            for i in 0..<3 {
                indices.append(try await group.open(name: "stream \(i)", properties: ["media.role": "music"]))
            }
            let inputs = try await connection.sinkInputs().filter { indices.contains($0.index) }
            #expect(inputs.count == 3)
            #expect(Set(inputs.map(\.clientIndex)).count == 1)
            #expect(inputs.allSatisfy { $0.properties["media.role"] == "music" })
            let client = try #require(try await connection.clients().first { $0.index == inputs[0].clientIndex })
            #expect(client.properties["application.name"] == "many")

            group.close()
            group.close()
            try await eventually("every stream of the group gone") { try await connection.sinkInputs().isEmpty }
            try await eventually("the group's client gone") {
                try await connection.clients().allSatisfy { $0.properties["application.name"] != "many" }
            }
        }
    }

    @Test func aPinnedStreamRefusesToMoveAndAnOtherDoesNot() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let sinks = try await connection.sinks()
            let speaker = try #require(sinks.first { $0.name == "speaker" })
            let headphones = try #require(sinks.first { $0.name == "headphones" })
            let pinned = try await PulsePlaybackStream.open(
                server: server.server, name: "pinned", properties: [:], sink: "speaker", signal: .silence, pinned: true)
            defer { pinned.close() }
            let free = try await PulsePlaybackStream.open(
                server: server.server, name: "free", properties: [:], sink: "speaker", signal: .quietToneLeftOnly)
            defer { free.close() }

            await #expect(throws: PulseError.self) {
                try await connection.moveSinkInput(pinned.sinkInputIndex, toSink: headphones.index)
            }
            #expect(try await connection.sinkInput(pinned.sinkInputIndex)?.sinkIndex == speaker.index)
            try await connection.moveSinkInput(free.sinkInputIndex, toSink: headphones.index)
            #expect(try await connection.sinkInput(free.sinkInputIndex)?.sinkIndex == headphones.index)
        }
    }
}
