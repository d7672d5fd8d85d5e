import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Locking
import Testing

@testable import AudioSessionCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `audiosessionctl` as Linux tools behave: `run` reports on standard error, `watch` writes timestamped lines
/// that a pipe gets at once, colour only on a terminal without NO_COLOR, one-line errors with documented exit
/// statuses, and a live replay that leaves the daemon as it found it. The tool runs in this process (through
/// `AudioSessionCtl.exitStatus`, as its `main` does) or as the built binary where a pipe or a terminal matters.
@Suite(.timeLimit(.minutes(3))) struct CtlHabitsTests {
    // MARK: run

    @Test func runSaysWhichSessionItMadeAndEachChangeOnStandardError() async throws {
        let gate = try ProgramGate()
        let errors = WatchedText()
        let (result, output) = try await InProcessDaemon.with { daemon in
            async let run = onThread {
                var output = ""
                var sink = errors
                let status = daemon.tool(
                    ["run", "--category", "playback", "--app", "music", "--"] + gate.program(exiting: 3),
                    output: &output,
                    errors: &sink
                )
                return (status, output)
            }
            try await onThread {
                defer { gate.open() }
                try #require(errors.wait { $0.contains("run: session 1 (playback/default) for /bin/sh\n") })
                let phone = try daemon.call("phone")
                try #require(errors.wait { $0.contains("run: interrupted by phone (A6)\n") }, "\(errors.value)")
                withExtendedLifetime(phone) {}
            }
            return try await run
        }
        #expect(result == 3)
        #expect(output.isEmpty)
        let lines = errors.value.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == "run: session 1 (playback/default) for /bin/sh")
        #expect(lines.contains("run: interrupted by phone (A6)"))
        #expect(lines.allSatisfy { $0.hasPrefix("run: ") }, "\(errors.value)")
    }

    @Test func quietRunSaysNothing() async throws {
        let gate = try ProgramGate()
        let result = try await InProcessDaemon.with { daemon in
            async let run = onThread {
                daemon.tool(["run", "-q", "--category", "playback", "--app", "music", "--"] + gate.program(exiting: 0))
            }
            try await onThread {
                defer { gate.open() }
                try #require(
                    try daemon.waitForStatus { $0.sessions.contains { $0.app == "music" && $0.state == .active } }
                )
                let phone = try daemon.call("phone")
                try #require(
                    try daemon.waitForStatus { $0.sessions.contains { $0.app == "music" && $0.state == .interrupted } }
                )
                withExtendedLifetime(phone) {}
            }
            return try await run
        }
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output.isEmpty)
    }

    @Test func runExitsWithItsProgramsStatus() async throws {
        let (exited, missing) = try await InProcessDaemon.with { daemon in
            try await onThread {
                (
                    daemon.tool(["run", "--category", "playback", "--", "/bin/sh", "-c", "exit 3"]),
                    daemon.tool(["run", "--category", "playback", "--", "/nonexistent/program"])
                )
            }
        }
        #expect(exited.status == 3)
        #expect(missing.status == 127)
        #expect(
            missing.errors.hasSuffix(
                "audiosessionctl: cannot run /nonexistent/program: No such file or directory; check its name and PATH\n"
            )
        )
    }

    // MARK: watch

    @Test func watchIntoAPipeWritesOneTimestampedLinePerChangeAtOnce() async throws {
        try await InProcessDaemon.with { daemon in
            try await onThread {
                let watch = try BuiltTool.start(["watch", "--socket", daemon.socketPath])
                defer { watch.stop() }
                let first = try watch.lines.next(awaiting: "the status as the watch began")
                #expect(
                    Self.withoutTime(first)
                        == "status: switch ring; screen unlocked; media services available; outputs speaker; inputs builtInMic; "
                        + "selected output none; sessions 0"
                )
                // Each change, then its line: the next change is made only once the line has come through the pipe.
                let changes: [([String], String)] = [
                    (["switch", "silent"], "switch: silent"),
                    (["lock"], "screen: locked"),
                    (["route", "connect", "headphones"], "port connected: headphones"),
                    (["route", "select", "headphones"], "selected output: headphones"),
                    (["unlock"], "screen: unlocked"),
                ]
                var times = [try Self.time(of: first)]
                for (arguments, expected) in changes {
                    #expect(daemon.tool(arguments).status == 0)
                    let line = try watch.lines.next(awaiting: expected)
                    #expect(Self.withoutTime(line) == expected)
                    times.append(try Self.time(of: line))
                }
                #expect(times == times.sorted())
                // hello, setCategory, activate: three inputs, three lines, each awaited before the next input. A
                // status not yet written when the next one comes is replaced by it (`ConnectionFlow`: a watch that
                // falls behind gets the newest), so three inputs at once may show as one line on a loaded machine.
                let music = try ControlConnection(path: daemon.socketPath, readTimeout: .seconds(60))
                let steps: [(Request, String)] = [
                    (
                        Request(.hello(app: "music")),
                        "session 1 music: new, soloAmbient/default, inactive (not activated yet (C1)), output none, "
                            + "input none, route headphones"
                    ),
                    (Request(.setCategory(.playback, options: [])), "session 1 music: category playback/default"),
                    (Request(.activate), "session 1 music: active (activated (A1))"),
                ]
                for (request, expected) in steps {
                    _ = try music.result(request)
                    let line = try watch.lines.next(awaiting: expected)
                    #expect(Self.withoutTime(line) == expected)
                }
                withExtendedLifetime(music) {}
                watch.stop()
                #expect(watch.process.terminationStatus == 0)
            }
        }
    }

    @Test func watchJSONWritesTheTimeAndTheStatusOnEachLine() async throws {
        try await InProcessDaemon.with { daemon in
            try await onThread {
                let watch = try BuiltTool.start(["watch", "--json", "--socket", daemon.socketPath])
                defer { watch.stop() }
                let first = try JSONDecoder().decode(WatchRecord.self, from: Data(try watch.lines.next().utf8))
                #expect(first.status.silentSwitch == .ring)
                #expect(daemon.tool(["switch", "silent"]).status == 0)
                let second = try JSONDecoder().decode(WatchRecord.self, from: Data(try watch.lines.next().utf8))
                #expect(second.status.silentSwitch == .silent)
                let parser = ISO8601DateFormatter()
                parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                let times = [first.time, second.time].compactMap { parser.date(from: $0) }
                #expect(times.count == 2 && times[0] <= times[1], "\(first.time) \(second.time)")
            }
        }
    }

    @Test func watchCountsUpdatesInLinesToo() async throws {
        let output = WatchedText()
        let status = try await InProcessDaemon.with { daemon in
            async let watched = onThread {
                var sink = output
                var errors = ""
                return daemon.tool(["watch", "--count", "2"], output: &sink, errors: &errors)
            }
            try await onThread {
                try #require(output.wait { $0.contains("status: switch ring") })
                #expect(daemon.tool(["switch", "silent"]).status == 0)
            }
            return try await watched
        }
        #expect(status == 0)
        let lines = output.value.split(separator: "\n").map { Self.withoutTime(String($0)) }
        #expect(lines.count == 2)
        #expect(lines.last == "switch: silent")
    }

    // MARK: colour

    @Test func noEscapeSequencesOffATerminalOrWithNoColor() async throws {
        let (status, watch) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let music = try daemon.client("music", .playback)
                try music.startStream(1)
                return withExtendedLifetime(music) {
                    (daemon.tool(["status"]), daemon.tool(["watch", "--count", "1"]))
                }
            }
        }
        #expect(status.output.contains("active"))
        #expect(!status.output.contains("\u{1B}"))
        #expect(!watch.output.contains("\u{1B}"))

        let noColor = TerminalStyle(isTerminal: true, environment: ["NO_COLOR": "1"])
        let emptyNoColor = TerminalStyle(isTerminal: true, environment: ["NO_COLOR": "", "TERM": "xterm"])
        #expect(!noColor.usesColour && noColor.isTerminal)
        #expect(emptyNoColor.usesColour)
        #expect(!TerminalStyle(isTerminal: false, environment: [:]).usesColour)
        #expect(!TerminalStyle(isTerminal: true, environment: ["TERM": "dumb"]).isTerminal)
        #expect(noColor.paint("active", .green) == "active")
        #expect(emptyNoColor.paint("active", .green) == "\u{1B}[32mactive\u{1B}[0m")
    }

    @Test(.enabled(if: BuiltTool.exists, "needs the built audiosessionctl (swift build)"))
    func onATerminalColourComesOnlyWithoutNoColor() async throws {
        let (plain, coloured) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let music = try daemon.client("music", .playback)
                try music.startStream(1)
                return try withExtendedLifetime(music) {
                    (
                        try BuiltTool.onTerminal(
                            ["status", "--socket", daemon.socketPath],
                            environment: ["NO_COLOR": "1", "TERM": "xterm"]
                        ),
                        try BuiltTool.onTerminal(
                            ["status", "--socket", daemon.socketPath],
                            environment: ["NO_COLOR": "", "TERM": "xterm"]
                        )
                    )
                }
            }
        }
        #expect(plain.contains("active"))
        #expect(!plain.contains("\u{1B}"), "\(plain.debugDescription)")
        #expect(coloured.contains("\u{1B}[32mactive\u{1B}[0m"), "\(coloured.debugDescription)")
    }

    // MARK: errors and exit statuses

    @Test func aMissingDaemonIsOneLineAndExitStatus3() async throws {
        let result = try await onThread { InProcessDaemon(socketPath: "/nonexistent/control").tool(["status"]) }
        #expect(result.status == 3)
        #expect(result.errors.hasPrefix("audiosessionctl: cannot reach audiosessiond at /nonexistent/control"))
        #expect(result.errors.split(separator: "\n").count == 1)
        #expect(result.output.isEmpty)
    }

    @Test(.enabled(if: BuiltTool.exists, "needs the built audiosessionctl (swift build)"))
    func theBuiltToolUsesTheDocumentedExitStatuses() async throws {
        let missing = try await onThread {
            try CtlResult.running(BuiltTool.path, ["switch", "silent", "--socket", "/nonexistent/control"])
        }
        #expect(missing.status == 3)
        #expect(missing.errors.split(separator: "\n").count == 1)
        #expect(missing.errors.hasPrefix("audiosessionctl: cannot reach audiosessiond at /nonexistent/control"))
        let unknown = try await onThread { try CtlResult.running(BuiltTool.path, ["frobnicate"]) }
        #expect(unknown.status == 2)
        #expect(unknown.errors.split(separator: "\n").count == 1, "\(unknown.errors)")
        let help = try await onThread { try CtlResult.running(BuiltTool.path, ["--help"]) }
        #expect(help.status == 0)
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("2 bad usage; 3 the daemon cannot be reached"), "\(help.output)")
    }

    /// A sound file that is not there is named with the system's reason, on one line, before any daemon is asked.
    @Test(.enabled(if: BuiltTool.exists, "needs the built audiosessionctl (swift build)"))
    func aMissingSoundFileIsOneLineWithItsReason() async throws {
        let missing = try await onThread {
            try CtlResult.running(
                BuiltTool.path,
                ["play", "/nonexistent/song.wav", "--category", "playback", "--socket", "/nonexistent/control"]
            )
        }
        #expect(missing.status == 1)
        #expect(missing.errors == "audiosessionctl: cannot open /nonexistent/song.wav: No such file or directory [unreadableFile]\n")
    }

    @Test func badUsageIsOneLineAndExitStatus2() async throws {
        let (category, count, command) = try await onThread {
            let tool = InProcessDaemon(socketPath: "/nonexistent/control")
            return (
                tool.tool(["run", "--category", "loud", "--", "true"]),
                tool.tool(["watch", "--count", "0"]),
                tool.tool(["run", "--category", "playback"])
            )
        }
        for result in [category, count, command] {
            #expect(result.status == 2)
            #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
            #expect(result.errors.hasPrefix("audiosessionctl: "))
        }
        #expect(count.errors == "audiosessionctl: --count must be at least 1; see `audiosessionctl watch --help`\n")
        #expect(command.errors.contains("name the program to run after --"))
    }

    @Test func aRefusedRequestIsExitStatus1() async throws {
        let result = try await InProcessDaemon.with { daemon in
            try await onThread { daemon.tool(["route", "select", "hdmi"]) }
        }
        #expect(result.status == 1)
        #expect(result.errors == "audiosessionctl: badParam: hdmi is not an available output; available: speaker\n")
    }

    // MARK: helpers

    /// `2026-11-25T10:15:30.123Z ` and what follows it: the line without its time.
    static func withoutTime(_ line: String) -> String {
        guard line.count > 25, (try? time(of: line)) != nil else { return "no time at the start: \(line)" }
        return String(line.dropFirst(25))
    }

    static func time(of line: String) throws -> String {
        let time = String(line.prefix(24))
        let pattern = #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#
        guard time.range(of: pattern, options: .regularExpression) != nil, line.dropFirst(24).first == " " else {
            throw LiveTestError("no ISO 8601 time with milliseconds at the start of \(line.debugDescription)")
        }
        return time
    }
}

/// The live replay against a daemon on a private PulseAudio: it leaves the switch, the lock and the output
/// selection as it found them, and no sessions, whether the scenario passed or failed.
@Suite(.serialized, .timeLimit(.minutes(4))) struct LiveReplayRestorationTests {
    static let scenarios = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Scenarios").path

    @Test func aPassingReplayPutsTheDaemonBack() async throws {
        // x-a-phones-day flips the switch, locks and unlocks the screen and unplugs headphones.
        let (passed, output, after) = try await replay(
            Self.scenarios + "/x-a-phones-day.yaml",
            locked: true
        )
        #expect(passed, "\(output)")
        #expect(after.silentSwitch == .silent)
        #expect(after.screenLocked)
        #expect(after.selectedOutput == .speaker)
        #expect(after.sessions.isEmpty)
    }

    @Test func aFailingReplayPutsTheDaemonBackToo() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/restore-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/wrong-expectation.yaml"
        try """
        name: A wrong expectation after the switch, the lock and the output have changed
        device: { outputs: [speaker, headphones] }
        sessions:
          music: { category: playback }
        steps:
          - play: music
          - silentSwitch: ring
          - screen: locked
          - selectOutput: headphones
          - expect:
              sessions:
                music: { state: interrupted }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (passed, output, after) = try await replay(file, locked: false)
        #expect(!passed)
        #expect(output.contains("FAIL \(file)"), "\(output)")
        #expect(after.silentSwitch == .silent)
        #expect(!after.screenLocked)
        #expect(after.selectedOutput == .speaker)
        #expect(after.sessions.isEmpty)
    }

    @Test(.enabled(if: BuiltTool.exists, "needs the built audiosessionctl (swift build)"))
    func anInterruptedReplayPutsTheDaemonBack() async throws {
        let live = try await ReplayDaemon(.pulseaudio)
        defer { live.stop() }
        let control = try ControlConnection(path: live.socket, readTimeout: .seconds(60))
        _ = try control.result(Request(.setSilentSwitch(.silent)))
        _ = try control.result(Request(.selectOutput(port: "speaker")))
        let replay = Process()
        replay.executableURL = URL(fileURLWithPath: BuiltTool.path)
        replay.arguments = [
            "replay", "--live", "--socket", live.socket, "--pulse-server", live.server.pulseServer,
            "--time-scale", String(ReplayDaemon.timeScale), Self.scenarios + "/x-a-phones-day.yaml",
        ]
        replay.standardOutput = FileHandle.nullDevice
        try ChildProcess.launch(replay)
        // Once the replay's sessions are there it is under way: SIGTERM stops it at its next step.
        try await eventually("the replay to start its sessions", within: 20) {
            try ControlConnection(path: live.socket, readTimeout: .seconds(60)).status().sessions.count >= 2
        }
        replay.terminate()
        #expect(await replay.exited(within: .seconds(20)))
        #expect(replay.terminationStatus == 128 + SIGTERM)
        let grace = Double(live.options.daemonConfig.graceMs) / 1000
        try await eventually("the replay's sessions to end", within: grace + 5) {
            try ControlConnection(path: live.socket, readTimeout: .seconds(60)).status().sessions.isEmpty
        }
        let after = try control.status()
        #expect(after.silentSwitch == .silent)
        #expect(!after.screenLocked)
        #expect(after.selectedOutput == .speaker)
    }

    /// Sets the switch to silent, the lock to `locked` and selects the speaker; replays `file`; returns whether
    /// it passed, what it printed, and the daemon's status once the replay's sessions are gone.
    private func replay(_ file: String, locked: Bool) async throws -> (Bool, String, StatusBody) {
        let live = try await ReplayDaemon(.pulseaudio)
        defer { live.stop() }
        let control = try ControlConnection(path: live.socket, readTimeout: .seconds(60))
        _ = try control.result(Request(.setSilentSwitch(.silent)))
        _ = try control.result(Request(.setScreenLock(locked: locked)))
        _ = try control.result(Request(.selectOutput(port: "speaker")))
        let before = try control.status()
        try #require(before.selectedOutput == .speaker && before.silentSwitch == .silent)
        var output = ""
        let passed = try await LiveReplay.run(
            paths: [file],
            options: live.options,
            timeline: false,
            explain: false,
            to: &output
        )
        // Unaware apps' sessions end a grace period after their last stream (stretched by the time scale).
        let grace = Double(live.options.daemonConfig.graceMs) / 1000
        try await eventually("the replay's sessions to end", within: grace + 5) {
            try ControlConnection(path: live.socket, readTimeout: .seconds(60)).status().sessions.isEmpty
        }
        return (passed, output, try control.status())
    }
}

// MARK: - Test support

extension InProcessDaemon {
    /// Runs `audiosessionctl ARGUMENTS --socket PATH` in this process as its `main` does (blocking).
    func tool(_ arguments: [String]) -> CtlResult {
        var output = ""
        var errors = ""
        let status = tool(arguments, output: &output, errors: &errors)
        return CtlResult(status: status, output: output, errors: errors)
    }

    func tool(_ arguments: [String], output: inout some TextOutputStream, errors: inout some TextOutputStream) -> Int32
    {
        var arguments = arguments
        arguments.insert(
            contentsOf: ["--socket", socketPath],
            at: arguments.firstIndex(of: "--") ?? arguments.endIndex
        )
        return AudioSessionCtl.exitStatus(running: arguments, output: &output, errors: &errors)
    }

    /// A call that interrupts others: `hello` with `call: true`, playAndRecord/voiceChat, activated.
    func call(_ app: String) throws -> ControlConnection {
        let connection = try ControlConnection(path: socketPath, readTimeout: .seconds(60))
        _ = try connection.result(
            Request(.hello(app: app, call: true))
        )
        _ = try connection.result(
            Request(.setCategory(.playAndRecord, mode: .voiceChat))
        )
        _ = try connection.result(Request(.activate))
        return connection
    }
}

/// Text written by a command on one thread and awaited on another: each write wakes a waiter.
final class WatchedText: TextOutputStream, Sendable {
    private let text = Locked("")
    private let written = DispatchSemaphore(value: 0)

    func write(_ string: String) {
        text.withLock { $0 += string }
        written.signal()
    }

    var value: String { text.withLock { $0 } }

    /// Waits until `condition` holds of the text, for at most `limit`; whether it did.
    func wait(within limit: Duration = .seconds(30), until condition: (String) -> Bool) -> Bool {
        let (seconds, attoseconds) = limit.components
        let deadline =
            DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        while !condition(value) {
            if written.wait(timeout: deadline) == .timedOut { return condition(value) }
        }
        return true
    }
}

/// A program for `run` that waits, without a clock, until the test lets it end: it reads a line from a FIFO
/// whose other end the test holds open, and `open()` writes that line.
final class ProgramGate: Sendable {
    let path: String
    private let writer: Int32

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/gate-\(UUID().uuidString.prefix(8))"
        guard mkfifo(path, 0o600) == 0 else { throw LiveTestError("cannot make a FIFO at \(path)") }
        // Read and write: opening does not wait for a reader, and the line waits in the FIFO for the program.
        writer = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard writer >= 0 else { throw LiveTestError("cannot open the FIFO at \(path)") }
    }

    /// `/bin/sh -c 'read line < FIFO; exit STATUS'`.
    func program(exiting status: Int32) -> [String] {
        ["/bin/sh", "-c", "read line < \"$0\"; exit \(status)", path]
    }

    func open() { _ = "go\n".withCString { Glibc.write(writer, $0, 3) } }

    deinit {
        close(writer)
        unlink(path)
    }
}

/// The built `audiosessionctl`, next to the test bundle: for what only a real process shows (a pipe's
/// buffering, a terminal, `main`'s exit status).
enum BuiltTool {
    static let path = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/audiosessionctl"
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// A running tool with its standard output on a pipe, read line by line.
    final class Running {
        let process: Process
        let lines: LineReader

        init(_ process: Process, output: Pipe) {
            self.process = process
            lines = LineReader(output.fileHandleForReading.fileDescriptor, keeping: output)
        }

        /// SIGTERM, as a user's `kill` would; SIGKILL if the tool is still there 10 s later.
        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            if !process.waitForExit(within: .seconds(10)) {
                kill(process.processIdentifier, SIGKILL)
                _ = process.waitForExit()
            }
        }
    }

    static func start(_ arguments: [String]) throws -> Running {
        guard exists else {
            throw LiveTestError("no audiosessionctl at \(path): build every product first (`swift build`)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try ChildProcess.launch(process)
        return Running(process, output: output)
    }

    /// Runs the tool with its standard output on a pseudo-terminal, with `environment` added to this process's;
    /// what it wrote there.
    static func onTerminal(_ arguments: [String], environment: [String: String]) throws -> String {
        // posix_openpt and its friends are not in Swift's Glibc module: what they do, with the kernel's ioctls.
        let unlock: UInt = 0x4004_5431  // TIOCSPTLCK
        let number: UInt = 0x8004_5430  // TIOCGPTN
        let primary = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard primary >= 0 else { throw LiveTestError("cannot open /dev/ptmx: errno \(errno)") }
        defer { close(primary) }
        var locked: Int32 = 0
        var index: UInt32 = 0
        guard ioctl(primary, unlock, &locked) == 0, ioctl(primary, number, &index) == 0 else {
            throw LiveTestError("cannot set up a pseudo-terminal: errno \(errno)")
        }
        let secondary = Glibc.open("/dev/pts/\(index)", O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw LiveTestError("cannot open /dev/pts/\(index): errno \(errno)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        try ChildProcess.launch(process)
        close(secondary)
        // Read until the tool has closed its end (EIO on Linux), each read waiting at most 10 s.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) > 0 else { break }
            let count = chunk.withUnsafeMutableBytes { read(primary, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        if !process.waitForExit() { kill(process.processIdentifier, SIGKILL) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Lines read from a descriptor, each awaited for at most a limit.
final class LineReader {
    private let descriptor: Int32
    private let owner: AnyObject
    private var buffer: [UInt8] = []

    init(_ descriptor: Int32, keeping owner: AnyObject) {
        self.descriptor = descriptor
        self.owner = owner
    }

    /// The next line without its newline; throws when none comes within `limit` or the writer has gone, saying
    /// what was `awaiting`.
    func next(within limit: Duration = .seconds(30), awaiting what: String = "a line") throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = max(0, (deadline - ContinuousClock.now) / .milliseconds(1))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left)) > 0 else {
                throw LiveTestError(
                    "no line within \(limit) (awaiting \(what)); so far: \(String(decoding: buffer, as: UTF8.self))"
                )
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw LiveTestError("the tool closed its output before a whole line") }
            buffer += chunk[..<count]
        }
    }
}
