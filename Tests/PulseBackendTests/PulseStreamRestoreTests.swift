import PulseBackend
import Testing

@Suite("module-stream-restore entries", .timeLimit(.minutes(4)))
struct PulseStreamRestoreTests {
    @Test func writtenEntryIsReadBack() async throws {
        try await withPrivatePulseServer(streamRestore: true) { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let stream = try await PulsePlaybackStream.open(
                server: server.server,
                name: "player",
                properties: ["media.role": "music"]
            )
            defer { stream.close() }
            let input = try #require(try await connection.sinkInput(stream.sinkInputIndex))
            let key = try #require(input.properties["module-stream-restore.id"])
            #expect(key == "sink-input-by-media-role:music")

            let saved = PulseStreamRestoreEntry(
                key: key,
                volume: PulseVolume(linear: 0.5, channels: 2),
                muted: true,
                device: "speaker"
            )
            try await connection.writeStreamRestoreEntry(saved)
            #expect(try await connection.streamRestoreEntry(key) == saved)
            // apply_immediately is false: the playing stream keeps its volume.
            #expect(try await connection.sinkInput(stream.sinkInputIndex)?.volume == input.volume)

            let volumeOnly = PulseStreamRestoreEntry(
                key: key,
                volume: PulseVolume(linear: 0.8, channels: 2),
                muted: false
            )
            try await connection.writeStreamRestoreEntry(volumeOnly)
            #expect(try await connection.streamRestoreEntry(key) == volumeOnly)
            #expect(try await connection.streamRestoreEntry("sink-input-by-media-role:nothing") == nil)
        }
    }

    @Test func missingModuleIsAClearError() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let error = await #expect(throws: PulseError.self) {
                try await connection.streamRestoreEntry("sink-input-by-media-role:music")
            }
            #expect(error?.code == .noExtension)
            #expect(error?.message.contains("module-stream-restore is not loaded") == true)
            await #expect(throws: PulseError.self) {
                try await connection.writeStreamRestoreEntry(PulseStreamRestoreEntry(key: "x", muted: true))
            }
        }
    }
}
