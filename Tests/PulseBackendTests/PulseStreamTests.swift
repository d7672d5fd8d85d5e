import PulseBackend
import Testing

@Suite("Real streams: properties, volume, mute, moves", .timeLimit(.minutes(4)))
struct PulseStreamTests {
    @Test func playbackStreamAppearsWithItsProperties() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let recorder = EventRecorder(connection)
            let stream = try await PulsePlaybackStream.open(
                server: server.server,
                name: "Music Player",
                properties: ["media.role": "music", "audiosession.id": "7"]
            )
            defer { stream.close() }
            let index = stream.sinkInputIndex
            try await recorder.waitFor("sink-input new") { $0 == .changed(.sinkInput, .new, index: index) }

            let listed = try #require(try await connection.sinkInputs().first { $0.index == index })
            #expect(listed.properties["media.role"] == "music")
            #expect(listed.properties["audiosession.id"] == "7")
            #expect(listed.name == "Music Player")
            #expect(listed.hasVolume && listed.volumeWritable)
            #expect(listed.volume.channels.count == 2)
            let speaker = try #require(try await connection.sinks().first { $0.name == "speaker" })
            #expect(listed.sinkIndex == speaker.index)
            let clientIndex = try #require(listed.clientIndex)
            let client = try #require(try await connection.clients().first { $0.index == clientIndex })
            #expect(client.properties["application.process.id"] == listed.properties["application.process.id"])

            let single = try await connection.sinkInput(index)
            #expect(single?.properties["media.role"] == "music")

            stream.close()
            stream.close()
            try await recorder.waitFor("sink-input remove") { $0 == .changed(.sinkInput, .remove, index: index) }
            #expect(try await connection.sinkInput(index) == nil)
            #expect(try await connection.sinkInputs().isEmpty)
        }
    }

    @Test func volumeAndMuteChangesAreReadBackAndReported() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let stream = try await PulsePlaybackStream.open(
                server: server.server,
                name: "game",
                properties: ["media.role": "game"]
            )
            defer { stream.close() }
            let index = stream.sinkInputIndex
            let recorder = EventRecorder(connection)

            let before = try #require(try await connection.sinkInput(index))
            #expect(before.volume == PulseVolume(uniform: PulseVolume.norm, channels: 2))
            let ducked = before.volume.scaled(by: 0.25)
            try await connection.setSinkInputVolume(index, ducked)
            try await recorder.waitFor("sink-input change") { $0 == .changed(.sinkInput, .change, index: index) }
            let after = try #require(try await connection.sinkInput(index))
            #expect(after.volume == ducked)
            #expect(abs(after.volume.decibels - -12.04) < 0.1)

            let changesBeforeMute = recorder.events.count
            try await connection.setSinkInputMute(index, true)
            #expect(try await connection.sinkInput(index)?.muted == true)
            try await eventually("a change event for the mute") { recorder.events.count > changesBeforeMute }
            try await connection.setSinkInputMute(index, false)
            #expect(try await connection.sinkInput(index)?.muted == false)

            try await stream.cork(true)
            #expect(try await connection.sinkInput(index)?.corked == true)
            try await stream.cork(false)
            #expect(try await connection.sinkInput(index)?.corked == false)

            let missing = await #expect(throws: PulseError.self) { try await connection.setSinkInputMute(9999, true) }
            #expect(missing?.code == .noEntity)
            await #expect(throws: PulseError.self) {
                try await connection.setSinkInputVolume(index, PulseVolume(channels: []))
            }
        }
    }

    @Test func movedStreamIsRescuedWhenItsSinkIsUnloaded() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let stream = try await PulsePlaybackStream.open(
                server: server.server,
                name: "podcast",
                properties: ["media.role": "music"]
            )
            defer { stream.close() }
            let index = stream.sinkInputIndex
            let recorder = EventRecorder(connection)
            let module = try await connection.loadModule("module-null-sink", arguments: "sink_name=usbAudio")
            let sinks = try await connection.sinks()
            let speaker = try #require(sinks.first { $0.name == "speaker" })
            let headphones = try #require(sinks.first { $0.name == "usbAudio" })

            try await connection.moveSinkInput(index, toSink: headphones.index)
            #expect(try await connection.sinkInput(index)?.sinkIndex == headphones.index)

            try await connection.unloadModule(module)
            try await recorder.waitFor("sink remove") { $0 == .changed(.sink, .remove, index: headphones.index) }
            try await eventually("the stream back on the speaker") {
                try await connection.sinkInput(index)?.sinkIndex == speaker.index
            }
            let missing = await #expect(throws: PulseError.self) {
                try await connection.moveSinkInput(index, toSink: headphones.index)
            }
            #expect(missing?.code == .noEntity)
        }
    }

    @Test func killedStreamIsGoneAndItsApplicationSeesIt() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let stream = try await PulsePlaybackStream.open(server: server.server, name: "doomed", properties: [:])
            defer { stream.close() }
            let recorder = EventRecorder(connection)
            try await connection.killSinkInput(stream.sinkInputIndex)
            try await recorder.waitFor("sink-input remove") {
                $0 == .changed(.sinkInput, .remove, index: stream.sinkInputIndex)
            }
            #expect(try await connection.sinkInput(stream.sinkInputIndex) == nil)
            try await eventually("cork to fail on the killed stream") {
                do {
                    try await stream.cork(true)
                    return false
                } catch is PulseError {
                    return true
                }
            }
        }
    }

    @Test func recordStreamAppearsAndCanBeMutedAndMoved() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let recorder = EventRecorder(connection)
            let stream = try await PulseRecordStream.open(
                server: server.server,
                name: "call",
                properties: ["media.role": "phone"],
                source: "builtInMic"
            )
            defer { stream.close() }
            let index = stream.sourceOutputIndex
            try await recorder.waitFor("source-output new") { $0 == .changed(.sourceOutput, .new, index: index) }
            let listed = try #require(try await connection.sourceOutputs().first { $0.index == index })
            #expect(listed.properties["media.role"] == "phone")
            let sources = try await connection.sources()
            let mic = try #require(sources.first { $0.name == "builtInMic" })
            let monitor = try #require(sources.first { $0.name == "speaker.monitor" })
            #expect(listed.sourceIndex == mic.index)

            try await connection.setSourceOutputMute(index, true)
            #expect(try await connection.sourceOutput(index)?.muted == true)
            let half = PulseVolume(linear: 0.5, channels: 2)
            try await connection.setSourceOutputVolume(index, half)
            #expect(try await connection.sourceOutput(index)?.volume == half)
            try await connection.moveSourceOutput(index, toSource: monitor.index)
            #expect(try await connection.sourceOutput(index)?.sourceIndex == monitor.index)

            stream.close()
            try await recorder.waitFor("source-output remove") { $0 == .changed(.sourceOutput, .remove, index: index) }
            #expect(try await connection.sourceOutput(index) == nil)
        }
    }

    @Test func openingOnAMissingSinkFails() async throws {
        try await withPrivatePulseServer { server in
            let error = await #expect(throws: PulseError.self) {
                try await PulsePlaybackStream.open(server: server.server, name: "x", properties: [:], sink: "nope")
            }
            #expect(error?.code == .noEntity)
        }
    }
}
