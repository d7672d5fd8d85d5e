import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// D8: who may activate during a call (A2's exemption) is decided by what the client's process runs and as
/// whom, as the kernel says, never by the name it declares. Real daemons, real sockets, and real programs: the
/// apps are a small Python client run by the system's interpreter, by a copy of it (the same bytes, another
/// file) or through a symlink to it.
@Suite(.serialized, .timeLimit(.minutes(4))) struct CallExemptionTests {
    static let python = "/usr/bin/python3.11"

    /// The app: `hello` as NAME, `setCategory playback`, `activate`, one JSON line with the outcome; with
    /// `again`, after each line of its input one more `activate`. It keeps its connection (and session) until
    /// its input ends.
    static let client = """
        import json, socket, sys
        path, name = sys.argv[1], sys.argv[2]
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(path)
        stream = connection.makefile("rw")
        def ask(request, number):
            request["id"] = number
            stream.write(json.dumps(request) + "\\n")
            stream.flush()
            while True:
                message = json.loads(stream.readline())
                if message.get("id") == number:
                    return message
        ask({"op": "hello", "app": name}, 1)
        ask({"op": "setCategory", "category": "playback"}, 2)
        number = 3
        while True:
            reply = ask({"op": "activate"}, number)
            print(json.dumps({"ok": reply["ok"], "code": reply.get("error", {}).get("code")}), flush=True)
            number += 1
            if len(sys.argv) < 4 or not sys.stdin.readline():
                break

        """

    /// `audiosessiond` without a sound server, on a folder of its own, logging to a file there.
    final class Daemon: Sendable {
        let folder: String
        let socket: String
        let configuration: String
        let process = Process()

        init(configuration text: (String) -> String) async throws {
            folder = FileManager.default.temporaryDirectory.path + "/exempt-\(UUID().uuidString.prefix(6))"
            socket = folder + "/control"
            configuration = folder + "/daemon.yaml"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try CallExemptionTests.client.write(toFile: folder + "/client.py", atomically: true, encoding: .utf8)
            try text(folder).write(toFile: configuration, atomically: true, encoding: .utf8)
            _ = FileManager.default.createFile(atPath: folder + "/daemon.log", contents: nil)
            process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
            process.arguments = [
                "--no-sound-server", "--no-alsa", "--config", configuration, "--socket", socket, "--state-dir",
                folder + "/state",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: folder + "/daemon.log")
            try ChildProcess.launch(process)
            let socket = socket
            // A connection, not the socket file: the file is there from bind(), a moment before listen().
            try await eventually("the daemon listens") { (try? ControlConnection(path: socket, readTimeout: .seconds(60))) != nil }
        }

        var log: String { (try? String(contentsOfFile: folder + "/daemon.log", encoding: .utf8)) ?? "" }

        /// Waits until the log has `text`: the daemon writes it as it goes, the reply may come first.
        func logSays(_ text: String) async throws {
            try await eventually("the log says: \(text)") { self.log.contains(text) }
        }

        func stop() {
            process.terminate()
            try? FileManager.default.removeItem(atPath: folder)
        }

        /// A call in progress, held by this test's own connection (the daemon's user may declare calls).
        func call() throws -> ControlConnection {
            let phone = try ControlConnection(path: socket, readTimeout: .seconds(60))
            let hello = Request(.hello(app: "phone", call: true))
            _ = try phone.result(hello)
            let category = Request(.setCategory(.playAndRecord))
            _ = try phone.result(category)
            _ = try phone.result(Request(.activate))
            return phone
        }

        /// Runs the client with `program`, declaring `name`, and returns its one outcome line.
        func activate(with program: String, declaring name: String) async throws -> String {
            let output = folder + "/\(UUID().uuidString.prefix(6)).out"
            let app = try start(program, name, output: output, again: false)
            try await eventually("the app ends", within: 15) { !app.isRunning }
            return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func start(_ program: String, _ name: String, output: String, again: Bool) throws -> Process {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            let app = Process()
            app.executableURL = URL(fileURLWithPath: program)
            app.arguments = [folder + "/client.py", socket, name] + (again ? ["again"] : [])
            app.standardOutput = FileHandle(forWritingAtPath: output)
            app.standardError = FileHandle(forWritingAtPath: output)
            app.standardInput = again ? Pipe() : FileHandle.nullDevice
            try ChildProcess.launch(app)
            return app
        }
    }

    static let exempt = #"{"ok": true, "code": null}"#
    static let refused = #"{"ok": false, "code": "insufficientPriority"}"#

    /// The hole D8 names: `callExemptApps: [orca]` let any client that declared "orca" start during a call.
    @Test func aDeclaredNameInTheListDoesNotExemptAClient() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python))
        let daemon = try await Daemon { _ in "callExemptApps: [orca]\n" }
        defer { daemon.stop() }
        let phone = try daemon.call()
        #expect(try await daemon.activate(with: Self.python, declaring: "orca") == Self.refused)
        try await daemon.logSays(
            "orca: not exempt from A2: callExemptApps names 'orca', but a client of the socket is exempt only by what it runs (an entry { executable: PATH }), and it runs \(Self.python) as user \(getuid())"
        )
        withExtendedLifetime(phone) {}
    }

    /// The configured file is what counts: a copy of the interpreter in a folder of the test is exempt, the
    /// system's interpreter (the same bytes, another file) is not, whatever name either declares. The entry
    /// comes from a drop-in file, as a package would ship it.
    @Test func aClientRunFromTheConfiguredExecutableIsExemptAndNoOtherFileIs() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python))
        let daemon = try await Daemon { folder in
            // Copied by cp, not in this process: a child another test forks meanwhile would inherit the copy's
            // open descriptor until its exec, and running the copy then fails with ETXTBSY (it did once).
            let copied = try? ChildProcess.run(
                URL(fileURLWithPath: "/bin/cp"), [Self.python, folder + "/reader"],
                environment: ChildProcess.environment([:]), timeout: .seconds(30))
            #expect(copied?.status == 0, "cp \(Self.python): \(copied?.standardError ?? "did not run")")
            try? FileManager.default.createDirectory(
                atPath: folder + "/daemon.yaml.d",
                withIntermediateDirectories: true
            )
            try? "callExemptApps:\n  - executable: \(folder)/reader\n".write(
                toFile: folder + "/daemon.yaml.d/50-reader.yaml",
                atomically: true,
                encoding: .utf8
            )
            return "callExemptApps: [orca]\n"
        }
        defer { daemon.stop() }
        let phone = try daemon.call()
        #expect(try await daemon.activate(with: daemon.folder + "/reader", declaring: "screen reader") == Self.exempt)
        try await daemon.logSays(
            "screen reader: exempt from A2 (may activate during a call): it runs \(daemon.folder)/reader as user \(getuid()), as callExemptApps entry \(daemon.folder)/reader says"
        )
        #expect(try await daemon.activate(with: Self.python, declaring: "orca") == Self.refused)
        withExtendedLifetime(phone) {}
    }

    /// `explain` says why an app of the socket may or may not activate during a call.
    @Test func explainSaysWhyAClientIsOrIsNotExempt() async throws {
        let daemon = try await Daemon { folder in "callExemptApps: [ { executable: \(folder)/none } ]\n" }
        defer { daemon.stop() }
        let phone = try daemon.call()
        let explain = Request(.explain(session: "phone"))
        let lines = try phone.result(explain).explanation ?? []
        let runs = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(
            lines.contains(
                "not exempt from A2: it runs \(runs) as user \(getuid()), which no callExemptApps entry names"
            ),
            "\(lines)"
        )
    }

    /// A symlink in the configuration is followed to its file; `user` must match too; and a reload decides a
    /// connected client again.
    @Test func aSymlinkIsFollowedTheUserMustMatchAndAReloadDecidesAgain() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python))
        let entry = { (folder: String, user: String) in
            "callExemptApps:\n  - { executable: \(folder)/interpreter, user: \(user) }\n"
        }
        let daemon = try await Daemon { folder in
            try? FileManager.default.createSymbolicLink(
                atPath: folder + "/interpreter",
                withDestinationPath: Self.python
            )
            return entry(folder, "65534")
        }
        defer { daemon.stop() }
        let phone = try daemon.call()
        let output = daemon.folder + "/app.out"
        let app = try daemon.start(Self.python, "reader", output: output, again: true)
        defer { app.terminate() }
        let lines: @Sendable () -> [String] = {
            (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        }
        try await eventually("the first activation is answered") { !lines().isEmpty }
        #expect(lines() == [Self.refused], "another user's entry")

        try entry(daemon.folder, "\(getuid())").write(toFile: daemon.configuration, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await eventually("the reload is reported") { daemon.log.contains("configuration reloaded") }
        try await daemon.logSays("reader (client#")
        (app.standardInput as? Pipe)?.fileHandleForWriting.write(Data("\n".utf8))
        try await eventually("the second activation is answered") { lines().count == 2 }
        #expect(lines() == [Self.refused, Self.exempt])
        withExtendedLifetime(phone) {}
    }
}
