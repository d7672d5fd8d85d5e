import AudioSessionConfiguration
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Logging
import PulseBackend
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon

/// The daemon's configuration file: checked at start and on SIGHUP; a bad reload keeps the running one.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ConfigurationTests {
    static func write(_ text: String, to name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "config-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `audiosessiond --check-config FILE` and returns its exit code and output; `asUser` runs it through
    /// `setpriv` as another user (the tests run as root, who may read any file).
    static func checkConfig(_ path: String, asUser user: (name: String, group: String)? = nil) throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = [
                "--reuid=\(user.name)", "--regid=\(user.group)", "--clear-groups", LiveDaemon.daemonPath,
                "--check-config", path,
            ]
        } else {
            process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
            process.arguments = ["--check-config", path]
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try ChildProcess.launch(process)
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

    /// A wrong command line is one line on standard error naming what is wrong, and exit status 2; a configuration
    /// file that cannot be used stops the start with its reason on standard error, and status 1.
    @Test func aWrongCommandLineOrAMissingFileIsOneReasonOnStandardError() throws {
        for arguments in [["--frob"], ["--check-config"], ["--log-level", "loud"]] {
            let result = try CtlResult.running(LiveDaemon.daemonPath, arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.output.isEmpty)
            #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
            #expect(result.errors.hasPrefix("audiosessiond: "), "\(result.errors)")
            #expect(result.errors.hasSuffix("; see `audiosessiond --help`\n"), "\(result.errors)")
        }
        let levels = try CtlResult.running(LiveDaemon.daemonPath, ["--log-level", "loud"])
        #expect(levels.errors.contains("trace, debug, info, notice, warning, error, critical"), "\(levels.errors)")
        let missing = try CtlResult.running(LiveDaemon.daemonPath, ["--config", "/nonexistent/policy.yaml"])
        #expect(missing.status == 1)
        #expect(missing.output.isEmpty)
        #expect(missing.errors.contains("/nonexistent/policy.yaml: cannot open the file: No such file or directory"))
        #expect(missing.errors.hasSuffix("audiosessiond: not started: the configuration file has errors\n"))
    }

    /// Every issue of the file, one per line sorted by position, then the count; exit status 1.
    @Test func checkConfigPrintsEveryIssueAndTheirCount() throws {
        let bad = try Self.write(
            """
            duckLevel: loud
            socket:
              mdoe: "0600"
            graceMs: -5
            logLevel: verbose

            """,
            to: "several.yaml"
        )
        let result = try Self.checkConfig(bad)
        #expect(result.status == 1)
        #expect(
            result.output == """
                \(bad):1:12: duckLevel: 'loud' is not a number; expected a number from 0 to 1
                \(bad):3:3: socket.mdoe: unknown key; did you mean 'mode'? expected one of: path, mode, group
                \(bad):4:10: graceMs: -5 is negative; expected a whole number of milliseconds, 0 or more
                \(bad):5:11: logLevel: 'verbose' is not a log level; expected one of: trace, debug, info, notice, warning, error, critical
                \(bad): 4 errors

                """
        )
    }

    /// A file that cannot be read is one issue with the system's reason; exit status 1.
    @Test func checkConfigSaysWhyAFileCannotBeRead() throws {
        let directory = (try Self.write("duckLevel: 0.5\n", to: "good.yaml") as NSString).deletingLastPathComponent
        let missing = try Self.checkConfig(directory + "/missing.yaml")
        #expect(missing.status == 1)
        #expect(
            missing.output
                == "\(directory)/missing.yaml: cannot open the file: No such file or directory\n\(directory)/missing.yaml: 1 error\n"
        )
        let isDirectory = try Self.checkConfig(directory)
        #expect(isDirectory.status == 1)
        #expect(isDirectory.output.hasPrefix("\(directory): cannot read the file: Is a directory\n"))
        let latin1 = directory + "/latin1.yaml"
        try Data("callExemptApps: [Ren".utf8 + [0xE9] + "e]\n".utf8).write(to: URL(fileURLWithPath: latin1))
        let notUTF8 = try Self.checkConfig(latin1)
        #expect(notUTF8.status == 1)
        #expect(
            notUTF8.output.hasPrefix("\(latin1):1:21: the file is not UTF-8 text: byte 20 (0xE9) is not valid UTF-8")
        )
    }

    /// Permission denied needs a user the file is closed to. Root may read anything, so as root the check runs
    /// as `nobody` on a file in a folder only root may enter.
    @Test func checkConfigSaysWhenPermissionIsDenied() throws {
        let path = try Self.write("duckLevel: 0.5\n", to: "closed.yaml")
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        let result: (status: Int32, output: String)
        if getuid() == 0 {
            try #require(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                "as root this test needs setpriv (util-linux) to run the check as nobody"
            )
            result = try Self.checkConfig(path, asUser: ("nobody", "nogroup"))
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            result = try Self.checkConfig(path)
        }
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("\(path): cannot open the file: Permission denied\n"), "\(result.output)")
    }

    @Test func aReloadAppliesANewDuckLevelWithoutDroppingSessionsAndABadOneKeepsTheRunningConfiguration() async throws {
        let config = try Self.write("duckLevel: 0.25\n", to: "policy.yaml")
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--config", config])
        defer { live.stop() }
        let app = try live.client()
        let hello = Request(.hello(app: "keeper"))
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
        try await eventually("ducked to 0.5 after the reload") {
            try await live.current(music.index)?.volume == full.scaled(by: 0.5)
        }
        #expect(try app.result(Request(.getState)).state?.session == session, "the session survived the reload")

        // Three mistakes: each is logged on a line of its own, then the summary.
        try "duckLevel: loud\ngraceMs: -5\nsocket: { mdoe: \"0600\" }\n".write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        kill(live.process.processIdentifier, SIGHUP)
        // The daemon's own report of the failed reload is the event waited for; then nothing may have changed.
        try await eventually("the bad reload is reported") {
            live.daemonLog().contains("configuration not reloaded")
        }
        #expect(
            try await live.current(music.index)?.volume == full.scaled(by: 0.5),
            "a bad reload keeps the running configuration"
        )
        #expect(live.process.isRunning)
        let log = live.daemonLog()
        #expect(log.contains("configuration not reloaded, the running one stays: \(config): 3 errors"))
        let issues = log.split(separator: "\n").filter { $0.contains("\(config):") && !$0.contains("not reloaded") }
        #expect(issues.count == 3, "\(issues)")
        #expect(
            issues.first?.hasSuffix("\(config):1:12: duckLevel: 'loud' is not a number; expected a number from 0 to 1")
                == true
        )
        #expect(
            issues.dropFirst().first?.hasSuffix(
                "\(config):2:10: graceMs: -5 is negative; expected a whole number of milliseconds, 0 or more"
            ) == true
        )
        #expect(
            issues.last?.hasSuffix(
                "\(config):3:11: socket.mdoe: unknown key; did you mean 'mode'? expected one of: path, mode, group"
            ) == true
        )
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
        try await eventually("the reload is reported") {
            live.daemonLog().contains("configuration reloaded")
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
        do {
            try await eventually("the music is ducked", within: 10) {
                try await live.current(music.index)?.volume == ducked
            }
        } catch {
            let now = try? await live.current(music.index)?.volume
            Issue.record(
                "\(error): the music is at \(String(describing: now)), ducked is \(ducked), full \(full); daemon log:\n\(live.daemonLog().split(separator: "\n").suffix(30).joined(separator: "\n"))"
            )
            throw error
        }
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

    /// The socket, the ALSA section and the log level are set up at the start; a reload that changes them says
    /// which, and the policy and port rules it applies at once are not among them.
    @Test func aReloadNamesTheFieldsThatWaitForTheNextStart() {
        var changed = DaemonConfiguration.standard
        changed.policy.duckLevel = 0.5
        changed.ports = PortRules(outputs: [], inputs: [])
        #expect(ConfigurationReloader.fieldsForTheNextStart(running: .standard, new: changed) == [])
        changed.socketMode = 0o660
        changed.alsa.mixer = nil
        changed.platform.lock = .off
        changed.logLevel = "debug"
        #expect(
            ConfigurationReloader.fieldsForTheNextStart(running: .standard, new: changed) == [
                "socket.mode", "alsa", "platform", "logLevel",
            ]
        )
    }

    /// A reload applies `logLevel` too: the daemon logs each connection at debug level only once the reloaded
    /// file asks for debug. The log is read after the daemon's reply, so a line it would have written is there.
    @Test func aReloadAppliesTheLogLevel() async throws {
        let config = try Self.write("logLevel: info\n", to: "loglevel.yaml")
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--config", config])
        defer { live.stop() }
        let log: @Sendable () -> String = { live.daemonLog() }

        _ = try live.client().result(Request(.status))
        #expect(!log().contains("connected: pid"), "no debug lines at info")

        try "logLevel: debug\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(live.process.processIdentifier, SIGHUP)
        try await eventually("the reload is reported") { log().contains("configuration reloaded") }
        #expect(!log().contains("take effect at the next start"), "\(log())")
        _ = try live.client().result(Request(.status))
        try await eventually("a connection is logged at debug level") { log().contains("connected: pid") }
    }

    @Test func underSystemdEachLogLineCarriesItsSyslogPriority() {
        let event = LogEvent(
            level: .warning,
            message: "sound server unavailable",
            metadata: ["retry": "1"],
            source: nil,
            file: "",
            function: "",
            line: 0
        )
        #expect(JournalLine.line(for: event) == "<4>sound server unavailable retry=1")
    }

    /// Elsewhere a line is swift-log's `StreamLogHandler`'s: time, level, label, the metadata sorted, the source.
    @Test func elsewhereEachLogLineCarriesItsTimeLevelLabelAndSource() {
        let event = LogEvent(
            level: .warning,
            message: "sound server unavailable",
            metadata: ["retry": "1", "at": "start"],
            source: "AudioSessionDaemon",
            file: "",
            function: "",
            line: 0
        )
        let time = "2026-11-29T11:07:41+0000"
        #expect(
            TimestampedLine.line(for: event, label: "audiosessiond", metadata: ["run": "2"], time: time)
                == "\(time) warning audiosessiond: at=start retry=1 run=2 [AudioSessionDaemon] sound server unavailable\n"
        )
        let plain = LogEvent(
            level: .info, message: "ready", metadata: nil, source: "AudioSessionDaemon", file: "", function: "", line: 0)
        #expect(
            TimestampedLine.line(for: plain, label: "audiosessiond", time: time)
                == "\(time) info audiosessiond: [AudioSessionDaemon] ready\n"
        )
    }
}
