import Locking
import AudioSessionTestSupport
import Foundation
import Synchronization
import Testing

/// docs/DBUS.md's examples of the daemon's D-Bus interface, run as they are written, on a private bus.
@Suite(.serialized) struct FaceDocumentationTests {
    /// One `$ ` command of the section and the answer shown under it (empty: none shown, none checked).
    struct Example {
        var command: String
        var answer: [String]
    }

    /// The `$ ` lines of the `console` blocks of "The daemon's D-Bus interface", with the lines under each.
    static func examples() throws -> [Example] {
        let text = try String(contentsOfFile: FaceDaemon.repository + "/docs/DBUS.md", encoding: .utf8)
        var examples: [Example] = []
        var inSection = false
        var inConsole = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") { inSection = line == "## The daemon's D-Bus interface" }
            guard inSection else { continue }
            if line.hasPrefix("```") {
                inConsole = !inConsole && line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                examples.append(Example(command: String(line.dropFirst(2)), answer: []))
            } else if !examples.isEmpty {
                examples[examples.count - 1].answer.append(line)
            }
        }
        return examples
    }

    /// The command's words with the private bus in place of the user's (`--user`, `--session`).
    static func words(of command: String, bus: PrivateSessionBus) -> [String] {
        command.split(separator: " ").map(String.init).flatMap { word -> [String] in
            switch word {
            case "--user": ["--address=\(bus.address)"]
            case "--session": ["--address", bus.address]
            default: [word]
            }
        }
    }

    @Test func theDocumentedDBusCommandsRun() async throws {
        let examples = try Self.examples()
        #expect(examples.count >= 8, "docs/DBUS.md shows busctl and gdbus examples")
        #expect(examples.contains { $0.command.hasPrefix("busctl --user ") })
        #expect(examples.contains { $0.command.hasPrefix("gdbus call --session ") })
        try await FaceDaemon.with { face in
            _ = try await onThread { face.daemon.ctl(["route", "connect", "headphones"]) }
            let music = try await onThread {
                let music = try face.daemon.client("music", .playback)
                try music.startStream(1)
                return HeldClient(music)
            }
            defer { music.close() }
            for example in examples {
                var words = Self.words(of: example.command, bus: face.bus)
                let tool = try FaceDaemon.tool(words.removeFirst())
                if words.first == "monitor" {
                    try await Self.monitorSeesAChange(tool.path, words, face)
                    continue
                }
                let run = try await FaceDaemon.run([tool.path] + words)
                #expect(run.status == 0, "`\(example.command)`: \(run.standardError)")
                guard !example.answer.isEmpty else { continue }
                let printed = run.standardOutput.split(separator: "\n").map(String.init)
                #expect(printed == example.answer, "`\(example.command)` answers \(printed), docs/DBUS.md shows \(example.answer)")
            }
        }
    }

    /// A monitor (which runs until stopped) prints `PropertiesChanged` when the switch changes. The switch is
    /// turned until it does: the monitor's subscription is not known to be in place when it starts.
    static func monitorSeesAChange(_ tool: String, _ arguments: [String], _ face: FaceDaemon) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try ChildProcess.launch(process)
        defer {
            // SIGKILL: the in-process daemon's ServiceGroup ignores SIGTERM and SIGINT in this process (it traps
            // them), and a child inherits ignored signals, so the monitor would outlive a terminate().
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 20)
        }
        let printed = Locked("")
        let seen = Atomic<Bool>(false)
        Thread {
            while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
                let text = printed.withLock {
                    $0 += String(decoding: data, as: UTF8.self)
                    return $0
                }
                if text.contains("PropertiesChanged") && text.contains("SilentSwitch") {
                    seen.store(true, ordering: .sequentiallyConsistent)
                }
            }
        }.start()
        try await within(30, "gdbus monitor to print PropertiesChanged") {
            var position = "silent"
            while !seen.load(ordering: .sequentiallyConsistent) {
                let now = position
                _ = try await onThread { face.daemon.ctl(["switch", now]) }
                position = position == "silent" ? "ring" : "silent"
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(printed.withLock { $0 }.contains("org.audiosessiond.Daemon1"))
    }
}
