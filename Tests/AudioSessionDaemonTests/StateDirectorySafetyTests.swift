import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon

/// The state directory is the daemon's own (docs/STATE.md): links planted in it are not followed, so nothing
/// outside it is ever written; a directory someone else could write in is refused (status 1, one line naming
/// it and what is wrong); the first start creates it 0700.
@Suite(.serialized, .timeLimit(.minutes(3))) struct StateDirectorySafetyTests {
    /// Every name the daemon writes in its state directory (the lock, the settings and their temporary, the
    /// stream journal's two files, the event log's two), each a link to a file of its own outside.
    static let writtenNames = [
        "lock", "settings.json", "settings.json.tmp", "streams.json", "streams.1.json", "events.jsonl",
        "events.1.jsonl",
    ]

    @Test func linksPlantedInTheStateDirectoryAreNotFollowed() async throws {
        let rig = try await CrashRig(.pulseaudio)
        defer { rig.stop() }
        let outside = rig.server.directory + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: rig.stateDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        for name in Self.writtenNames {
            try "precious \(name)\n".write(toFile: outside + "/" + name, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(
                atPath: rig.stateDirectory + "/" + name,
                withDestinationPath: outside + "/" + name
            )
        }
        let before = try Self.contents(of: outside)

        // The daemon writes each of its files: the lock and the event log when it starts, the stream journal
        // when a call silences the music (and empty again at SIGTERM), the settings when the switch is flipped.
        try await rig.startDaemon()
        let player = try rig.play(app: "radio", role: "music")
        defer { player.terminate() }
        let music = try await rig.stream(app: "radio")
        let call = try rig.play(app: "call", role: "phone")
        defer { call.terminate() }
        try await eventually("the call silences the music") {
            try await rig.observer.sinkInput(music.index)?.isSilenced == true
        }
        try await eventually("the stream journal holds the silenced music") {
            try rig.journal(in: rig.stateDirectory).entries.contains { $0.application == "radio" }
        }
        let flip = Request(.setSilentSwitch(.silent))
        _ = try rig.control().result(flip)
        try await eventually("the settings hold the switch") {
            (try? String(contentsOfFile: rig.stateDirectory + "/settings.json", encoding: .utf8))?.contains("silent")
                == true
        }
        let daemon = try #require(rig.daemon)
        daemon.terminate()
        #expect(await daemon.exited(within: .seconds(15)))

        #expect(try Self.contents(of: outside) == before, "nothing outside the state directory changed")
        let log = rig.latestDaemonLog()
        let state = rig.stateDirectory
        for (name, what) in [
            ("lock", "is a symbolic link to \(outside)/lock; not followed: moved aside"),
            ("events.jsonl", "is a symbolic link to \(outside)/events.jsonl; not followed: moved aside"),
            ("settings.json", "ignored: it is a symbolic link to \(outside)/settings.json; not followed"),
            ("settings.json.tmp", "is a symbolic link to \(outside)/settings.json.tmp; not followed: removed"),
            ("streams.json", "ignored: it is a symbolic link to \(outside)/streams.json; not followed"),
            ("streams.1.json", "ignored: it is a symbolic link to \(outside)/streams.1.json; not followed"),
        ] {
            #expect(log.contains("state file \(state)/\(name) \(what)"), "\(name) refused in the log:\n\(log)")
        }
        // The daemon went on with files of its own.
        for name in ["lock", "settings.json", "streams.json", "streams.1.json", "events.jsonl"] {
            let type = try FileManager.default.attributesOfItem(atPath: state + "/" + name)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(name) is a plain file now")
        }
        let settings = try String(contentsOfFile: state + "/settings.json", encoding: .utf8)
        #expect(settings.contains("\"silentSwitch\":\"silent\""))
        print(log.split(separator: "\n").filter { $0.contains("not followed") }.joined(separator: "\n"))

        // A hard link to a file outside where the event log is appended to, and a named pipe where the settings
        // are read from (reading it would wait for a writer forever): both moved aside, the daemon serves.
        try "precious hard link\n".write(toFile: outside + "/linked", atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: state + "/events.jsonl")
        #expect(link(outside + "/linked", state + "/events.jsonl") == 0)
        try FileManager.default.removeItem(atPath: state + "/settings.json")
        #expect(mkfifo(state + "/settings.json", 0o600) == 0)
        let linked = try Self.contents(of: outside)
        try await rig.startDaemon()
        _ = try rig.control().result(flip)
        let second = try #require(rig.daemon)
        second.terminate()
        #expect(await second.exited(within: .seconds(15)))
        #expect(try Self.contents(of: outside) == linked, "nothing outside changed through the hard link")
        let secondLog = rig.latestDaemonLog()
        for (name, what) in [
            ("events.jsonl", "is a hard link (the file has 2 names); not followed: moved aside"),
            ("settings.json", "ignored: it is a named pipe; not followed"),
        ] {
            #expect(secondLog.contains("state file \(state)/\(name) \(what)"), "\(name) refused:\n\(secondLog)")
        }
        print(secondLog.split(separator: "\n").filter { $0.contains("not followed") }.joined(separator: "\n"))
    }

    @Test func aDirectoryOthersCouldWriteInIsRefused() throws {
        let scratch = FileManager.default.temporaryDirectory.path + "/statedir-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var cases: [(String, (String) throws -> Void, String)] = [
            (
                "mode 0777", { try Self.directory($0, mode: 0o777) },
                "it is writable by its group and others (mode 0777)"
            ),
            ("mode 0770", { try Self.directory($0, mode: 0o770) }, "it is writable by its group (mode 0770)"),
            (
                "mode 1777", { try Self.directory($0, mode: 0o1777) },
                "it is writable by its group and others (mode 1777)"
            ),
            ("a file", { try "x".write(toFile: $0, atomically: false, encoding: .utf8) }, "it is not a directory"),
        ]
        if geteuid() == 0 {
            cases.append(
                (
                    "owned by 65534",
                    {
                        try Self.directory($0, mode: 0o700)
                        #expect(chown($0, 65534, 65534) == 0)
                    },
                    "it is owned by uid 65534"
                )
            )
        }
        for (what, make, problem) in cases {
            let state = scratch + "/" + what.replacingOccurrences(of: " ", with: "-")
            try make(state)
            let socket = scratch + "/control"
            let run = try ChildProcess.run(
                URL(fileURLWithPath: LiveDaemon.daemonPath),
                ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", state],
                environment: ProcessInfo.processInfo.environment,
                timeout: .seconds(30)
            )
            #expect(run.status == 1, "\(what): exit status \(run.status)\n\(run.standardError)")
            let line = "audiosessiond: not started: state directory \(state) refused: \(problem)"
            #expect(run.standardError.contains(line), "\(what): \(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: state + "/lock"), "\(what): nothing written in it")
            #expect(!FileManager.default.fileExists(atPath: socket), "\(what): not served")
            print("\(what): \(run.standardError.split(separator: "\n").last ?? "")")
        }
    }

    @Test func theFirstStartCreatesItPrivateAndSystemdsDirectoriesAreAccepted() async throws {
        let scratch = FileManager.default.temporaryDirectory.path + "/statedir-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Created on the first start, 0700; as systemd makes it with the default StateDirectoryMode= (0755);
        // through a link, as DynamicUser= makes /var/lib/NAME (a link into /var/lib/private).
        try Self.directory(scratch + "/private", mode: 0o700)
        try Self.directory(scratch + "/private/dynamic", mode: 0o700)
        try FileManager.default.createSymbolicLink(
            atPath: scratch + "/linked",
            withDestinationPath: scratch + "/private/dynamic"
        )
        try Self.directory(scratch + "/readable", mode: 0o755)
        for state in [scratch + "/new/nested/state", scratch + "/readable", scratch + "/linked"] {
            let socket = scratch + "/control"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
            process.arguments = ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", state]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try ChildProcess.newFile(scratch + "/daemon.log")
            try ChildProcess.launch(process)
            defer { process.stop() }
            try await eventually("the daemon serves from \(state)") {
                (try? ControlConnection(path: socket, readTimeout: .seconds(60)).result(Request(.status))) != nil
            }
            #expect(FileManager.default.fileExists(atPath: state + "/lock"))
            process.stop()
        }
        let created = try FileManager.default.attributesOfItem(atPath: scratch + "/new/nested/state")
        #expect((created[.posixPermissions] as? Int) == 0o700, "the first start creates it 0700")
    }

    private static func directory(_ path: String, mode: mode_t) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chmod(path, mode) == 0)
    }

    /// Each file's name and bytes.
    private static func contents(of directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }
}
