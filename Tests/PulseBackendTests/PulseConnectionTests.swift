import AudioSessionTestSupport
import PulseBackend
import Testing

@Suite("PulseConnection against a private PulseAudio", .timeLimit(.minutes(4)))
struct PulseConnectionTests {
    @Test func connectsAndReadsServerInfo() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let info = try await connection.serverInfo()
            #expect(info.serverName == "pulseaudio")
            #expect(info.serverVersion.hasPrefix("16."))
            #expect(info.defaultSinkName == "speaker")
            #expect(info.defaultSourceName == "builtInMic")
        }
    }

    @Test func connectingToAMissingServerThrowsPromptly() async throws {
        let connection = PulseConnection(server: "unix:/nonexistent/pulse/native", applicationName: "tests")
        let recorder = EventRecorder(connection)
        // Well under libpulse's own 30 s timeout, with room for a loaded machine (alone it takes about 1 ms).
        let error = await #expect(throws: PulseError.self) {
            try await withTimeout(10, "connect() to fail") { try await connection.connect() }
        }
        #expect(error?.code == .connectionRefused)
        try await recorder.waitFor("disconnected") { if case .disconnected = $0 { true } else { false } }
        try await recorder.waitForEnd()
        await #expect(throws: PulseError.self) { try await connection.sinks() }
        connection.close()
    }

    @Test func callsBeforeConnectAndAfterCloseThrow() async throws {
        try await withPrivatePulseServer { server in
            let connection = PulseConnection(server: server.server, applicationName: "tests")
            let early = await #expect(throws: PulseError.self) { try await connection.sinks() }
            #expect(early?.code == .badState)
            try await connection.connect()
            await #expect(throws: PulseError.self) { try await connection.connect() }
            let recorder = EventRecorder(connection)
            connection.close()
            connection.close()
            try await recorder.waitForEnd()
            #expect(recorder.events.isEmpty)
            let late = await #expect(throws: PulseError.self) { try await connection.serverInfo() }
            #expect(late?.code == .badState)
            var afterClose = connection.events.makeAsyncIterator()
            #expect(await afterClose.next() == nil)
        }
    }

    @Test func listsSinksSourcesAndClients() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server, name: "lister")
            defer { connection.close() }
            let sinks = try await connection.sinks()
            let speaker = try #require(sinks.first { $0.name == "speaker" })
            #expect(speaker.description == "Speaker")
            #expect(speaker.moduleIndex != nil)
            let sources = try await connection.sources()
            let mic = try #require(sources.first { $0.name == "builtInMic" })
            #expect(mic.monitorOfSink == nil)
            let monitor = try #require(sources.first { $0.name == "speaker.monitor" })
            #expect(monitor.monitorOfSink == speaker.index)
            let clients = try await connection.clients()
            let me = try #require(clients.first { $0.name == "lister" })
            #expect(me.properties["application.process.id"] != nil)
            // One device by its index, as the list has it; none for an index no device has.
            #expect(try await connection.sink(speaker.index) == speaker)
            #expect(try await connection.source(mic.index) == mic)
            let unused = (sinks.map(\.index) + sources.map(\.index)).max()! + 100
            #expect(try await connection.sink(unused) == nil)
            #expect(try await connection.source(unused) == nil)
        }
    }

    @Test func loadsAndUnloadsModules() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let recorder = EventRecorder(connection)
            let module = try await connection.loadModule("module-null-sink", arguments: "sink_name=usbAudio")
            let headphones = try #require(try await connection.sinks().first { $0.name == "usbAudio" })
            #expect(headphones.moduleIndex == module)
            try await recorder.waitFor("sink new") { $0 == .changed(.sink, .new, index: headphones.index) }
            try await connection.setDefaultSink("usbAudio")
            #expect(try await connection.serverInfo().defaultSinkName == "usbAudio")
            try await recorder.waitFor("server change") { $0 == .changed(.server, .change, index: $0.index) }
            try await connection.unloadModule(module)
            try await recorder.waitFor("sink remove") { $0 == .changed(.sink, .remove, index: headphones.index) }
            #expect(try await connection.sinks().map(\.name).sorted() == ["headphones", "speaker"])
            let failure = await #expect(throws: PulseError.self) {
                try await connection.loadModule("module-does-not-exist", arguments: "")
            }
            #expect(failure?.code == .moduleInitFailed)
            await #expect(throws: PulseError.self) { try await connection.unloadModule(9999) }
        }
    }
}

extension PulseEvent {
    /// The event's index (0 for `.disconnected`), for predicates that match any index.
    var index: UInt32 {
        if case .changed(_, _, let index) = self { return index }
        return 0
    }
}
