import AudioSessionDaemon
import AudioSessionProtocol
import AudioSessionScenario
import AudioSessionTestSupport
import Foundation
import Logging
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// The daemon's configuration file: checked at start and on SIGHUP; a bad reload keeps the running one.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ConfigurationTests {
    static func write(_ text: String, to name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `audiosessiond --check-config FILE` and returns its exit code and output.
    static func checkConfig(_ path: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
        process.arguments = ["--check-config", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        _ = process.waitForExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func checkConfigAcceptsTheShippedFileAndNamesTheLineAndFieldOfABadOne() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/policy.yaml").path
        #expect(try Self.checkConfig(shipped).status == 0)
        let bad = try Self.write("duckLevel: 0.3\nsocket:\n  mode: rwx\n", to: "bad.yaml")
        let result = try Self.checkConfig(bad)
        #expect(result.status == 1)
        #expect(result.output.contains("bad.yaml:3:9: "))
        #expect(result.output.contains("mode: 'rwx' is not a permission mode"))
        let corrupt = try Self.write("duckLevel: [0.3\nrules: {", to: "corrupt.yaml")
        let broken = try Self.checkConfig(corrupt)
        #expect(broken.status == 1)
        #expect(broken.output.contains("corrupt.yaml:"))
    }

    @Test func aReloadAppliesANewDuckLevelWithoutDroppingSessionsAndABadOneKeepsTheRunningConfiguration() async throws {
        let config = try Self.write("duckLevel: 0.25\n", to: "policy.yaml")
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--config", config])
        defer { live.stop() }
        let app = try live.client()
        var hello = Request(op: .hello)
        hello.app = "keeper"
        let session = try app.result(hello).session
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        let full = PulseVolume(uniform: PulseVolume.norm, channels: 2)
        try await eventually("ducked to 0.25") { try await live.current(music.index)?.volume == full.scaled(by: 0.25) }

        try "duckLevel: 0.5\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(live.process.processIdentifier, SIGHUP)
        try await eventually("ducked to 0.5 after the reload") { try await live.current(music.index)?.volume == full.scaled(by: 0.5) }
        #expect(try app.result(Request(op: .getState)).state?.session == session, "the session survived the reload")

        try "duckLevel: loud\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(live.process.processIdentifier, SIGHUP)
        let logPath = live.server.directory + "/" + (try FileManager.default.contentsOfDirectory(atPath: live.server.directory).first { $0.hasSuffix("-audiosessiond.log") } ?? "")
        // The daemon's own report of the failed reload is the event waited for; then nothing may have changed.
        try await eventually("the bad reload is reported") {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("configuration not reloaded")
        }
        #expect(try await live.current(music.index)?.volume == full.scaled(by: 0.5), "a bad reload keeps the running configuration")
        #expect(live.process.isRunning)
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("configuration not reloaded, the running one stays: \(config):1:12"))
    }

    /// A reload applies `duckFadeMs` too: after a reload from a 2 s fade to none, ducking is one step. Every
    /// volume the server reports for the music while it is being ducked is read: none lies between the user's
    /// and the ducked one. (With the 2 s fade still in force there would be dozens.)
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aReloadAppliesANewFadeTime(_ kind: PrivateSoundServer.Kind) async throws {
        let config = try Self.write("duckFadeMs: 2000\n", to: "fade-\(kind).yaml")
        let live = try await LiveDaemon(kind, arguments: ["--config", config])
        defer { live.stop() }
        let player = try live.play(role: "music")
        defer { player.terminate() }
        let music = try await live.stream(role: "music")
        let full = try #require(try await live.current(music.index)).volume
        let ducked = full.scaled(by: 0.25)

        try "duckFadeMs: 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(live.process.processIdentifier, SIGHUP)
        let logPath = live.server.directory + "/" + (try FileManager.default.contentsOfDirectory(atPath: live.server.directory).first { $0.hasSuffix("-audiosessiond.log") } ?? "")
        try await eventually("the reload is reported") {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("configuration reloaded")
        }

        let events = live.observer.events
        let observer = live.observer
        let watcher = Task {
            var between: [PulseVolume] = []
            for await event in events {
                guard case .changed(.sinkInput, .change, let index) = event, index == music.index,
                    let volume = try? await observer.sinkInput(index)?.volume
                else { continue }
                if volume == ducked { break }
                if volume != full { between.append(volume) }
            }
            return between
        }
        let prompt = try live.play(role: "navigation")
        defer { prompt.terminate() }
        try await eventually("the music is ducked", within: 10) { try await live.current(music.index)?.volume == ducked }
        // The watcher ends at the ducked volume; the limit is a safety net for a stream of events that stops.
        let result = await withTaskGroup(of: [PulseVolume]?.self) { group in
            group.addTask { await watcher.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            watcher.cancel()
            return first
        }
        let between = try #require(result, "the observer never saw the music reach its ducked volume")
        #expect(between.isEmpty, "volumes between full and ducked after a reload to duckFadeMs 0: \(between)")
    }

    @Test func underSystemdEachLogLineCarriesItsSyslogPriority() {
        let event = LogEvent(level: .warning, message: "sound server unavailable", metadata: ["retry": "1"], source: nil, file: "", function: "", line: 0)
        #expect(JournalLineHandler.line(for: event) == "<4>sound server unavailable retry=1")
    }
}
