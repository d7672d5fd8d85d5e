import AudioSessionTestSupport
import Foundation
import Testing

/// The private sound servers the daemon's end-to-end tests run against. A server that cannot start fails the
/// test with the reason (a missing package, the tail of its log); it is never skipped.
@Suite("Private sound servers", .timeLimit(.minutes(4)))
struct PrivateSoundServerTests {
    @Test(
        "starts with the initial devices, plays, plugs, dies and comes back",
        arguments: PrivateSoundServer.Kind.allCases
    )
    func lifecycle(kind: PrivateSoundServer.Kind) async throws {
        let server = try await PrivateSoundServer.start(kind)
        defer { server.stop() }
        #expect(server.kind == kind)
        #expect(server.pulseServer.hasPrefix("unix:\(server.directory)/"))
        #expect(server.environment["PULSE_SERVER"] == server.pulseServer)
        #expect((server.environment["XDG_RUNTIME_DIR"] != nil) == (kind == .pipewire))
        #expect(try sinks(of: server) == ["headphones", "speaker"])
        #expect(try sources(of: server).contains("builtInMic"))
        #expect(try answer(of: server, ["get-default-sink"]) == "speaker")
        #expect(try answer(of: server, ["get-default-source"]) == "builtInMic")

        // A stream with a role shows up with it.
        let tone = "\(server.directory)/tone.wav"
        // Longer than the wait below: the player is still playing when the wait gives up.
        try PrivateSoundServer.writeTone(to: tone, seconds: 40)
        let player = try server.spawn("paplay", [tone], environment: ["PULSE_PROP": "media.role=music"])
        defer { terminate(player) }
        // A player that ends early ends the wait: its status and output say why there is no stream.
        let appeared = try await eventually(within: .seconds(30)) {
            try server.pactl(["list", "sink-inputs"]).contains("media.role = \"music\"") || !player.isRunning
        }
        let outcome = player.isRunning ? "still running" : "exited with \(player.terminationStatus)"
        let listed = (try? server.pactl(["list", "short", "sink-inputs"])) ?? "?"
        #expect(
            appeared && player.isRunning,
            "no sink input with media.role = \"music\" within 30 s; paplay \(outcome), its output: \(server.output(of: player).suffix(600)); sink inputs: \(listed)"
        )
        terminate(player)

        // Unplugging and plugging the headphones.
        let headphonesModule = try #require(try moduleIndex(of: "headphones", in: server))
        // PipeWire makes and removes a module's device after `pactl` has returned: each change is waited for.
        try server.unloadModule(headphonesModule)
        #expect(try await eventually(within: .seconds(10)) { try sinks(of: server) == ["speaker"] })
        _ = try server.loadNullSink("headphones", description: "Wired Headphones")
        #expect(try await eventually(within: .seconds(10)) { try sinks(of: server) == ["headphones", "speaker"] })
        #expect(try server.pactl(["list", "sinks"]).contains("Description: Wired Headphones"))
        let mic = try server.loadNullSource("usbMic")
        #expect(try await eventually(within: .seconds(10)) { try sources(of: server).contains("usbMic") })
        try server.unloadModule(mic)
        #expect(try await eventually(within: .seconds(10)) { try !sources(of: server).contains("usbMic") })

        // Lost, then back at the same address with the initial devices.
        let address = server.pulseServer
        try await server.kill()
        #expect(!server.isAnswering())
        #expect(throws: SoundServerError.self) { try server.pactl(["info"]) }
        try await server.restart()
        #expect(server.isAnswering())
        #expect(server.pulseServer == address)
        #expect(try server.pactl(["info"]).contains("Server String: \(address)\n"))
        #expect(try sinks(of: server) == ["headphones", "speaker"])

        server.stop()
        server.stop()
        #expect(!server.isAnswering())
        #expect(!FileManager.default.fileExists(atPath: server.directory))
        #expect(throws: SoundServerError.self) { try server.restart() }
    }

    @Test("two servers at once are independent", arguments: PrivateSoundServer.Kind.allCases)
    func twoServers(kind: PrivateSoundServer.Kind) throws {
        let first = try PrivateSoundServer.start(kind)
        defer { first.stop() }
        let second = try PrivateSoundServer.start(kind)
        defer { second.stop() }
        #expect(first.pulseServer != second.pulseServer)

        _ = try first.loadNullSink("onlyInFirst")
        #expect(try sinks(of: first).contains("onlyInFirst"))
        #expect(try sinks(of: second) == ["headphones", "speaker"])

        try first.kill()
        #expect(!first.isAnswering())
        #expect(second.isAnswering())
        #expect(try sinks(of: second) == ["headphones", "speaker"])
    }

    @Test("extra modules are loaded at start and again on restart")
    func extraModules() throws {
        let server = try PrivateSoundServer.start(.pulseaudio, extraModules: ["module-role-cork trigger_roles=phone"])
        defer { server.stop() }
        #expect(try server.pactl(["list", "short", "modules"]).contains("module-role-cork"))
        try server.restart()
        #expect(try server.pactl(["list", "short", "modules"]).contains("module-role-cork"))
    }

    @Test("a module the server lacks fails the start with the server's reason")
    func missingModule() throws {
        let error = try #require(throws: SoundServerError.self) {
            try PrivateSoundServer.start(.pipewire, extraModules: ["module-role-cork"])
        }
        #expect(error.code == .commandFailed)
        #expect(error.description.contains("No such entity"))
    }

    @Test("the tone is a 16-bit stereo 44.1 kHz WAV file")
    func tone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PrivateSoundServer.writeTone(to: path, seconds: 0.5)
        let wav = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(wav.count == 44 + 22_050 * 4)
        #expect(String(decoding: wav.prefix(4), as: UTF8.self) == "RIFF")
        #expect(String(decoding: wav[8..<16], as: UTF8.self) == "WAVEfmt ")
        #expect(String(decoding: wav[36..<40], as: UTF8.self) == "data")
    }
}

// MARK: - Helpers

extension PrivateSoundServerTests {
    fileprivate func sinks(of server: PrivateSoundServer) throws -> [String] {
        try names(server.pactl(["list", "short", "sinks"]))
    }

    fileprivate func sources(of server: PrivateSoundServer) throws -> [String] {
        try names(server.pactl(["list", "short", "sources"]))
    }

    /// The second column of `pactl list short` output, sorted.
    fileprivate func names(_ listing: String) -> [String] {
        listing.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: "\t")
            return columns.count > 1 ? String(columns[1]) : nil
        }.sorted()
    }

    /// The index of the module that loaded the null sink `name`.
    fileprivate func moduleIndex(of name: String, in server: PrivateSoundServer) throws -> UInt32? {
        try server.pactl(["list", "short", "modules"]).split(separator: "\n").first { line in
            line.split(separator: "\t").dropFirst(2).first?.split(separator: " ").contains("sink_name=\(name)") == true
        }.flatMap { UInt32($0.split(separator: "\t")[0]) }
    }

    /// The one-line answer of `pactl ARGUMENTS`, without its newline.
    fileprivate func answer(of server: PrivateSoundServer, _ arguments: [String]) throws -> String {
        try server.pactl(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    fileprivate func eventually(within limit: Duration, _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            if try condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    fileprivate func terminate(_ process: Process) {
        guard process.isRunning else { return }
        process.stop()
    }
}
