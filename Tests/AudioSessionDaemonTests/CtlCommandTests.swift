import Locking
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// `audiosessionctl`'s control commands against a daemon in this process (no sound server): sessions and
/// streams are made by plain clients, as apps would.
@Suite(.timeLimit(.minutes(3))) struct CtlCommandTests {
    @Test func statusShowsSessionsAndStreams() async throws {
        let (text, json) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let music = try daemon.client("music", .playback)
                try music.startStream(1)
                return withExtendedLifetime(music) { (daemon.ctl(["status"]), daemon.ctl(["status", "--json"])) }
            }
        }
        #expect(text.status == 0)
        #expect(text.output.contains("silent switch: ring"))
        #expect(text.output.contains("music  playback/default  -        active"))
        #expect(text.output.contains("client#"))
        #expect(text.output.contains("stream 1  yes      audible"))
        let status = try JSONDecoder().decode(StatusBody.self, from: Data(json.output.utf8))
        #expect(status.sessions.map(\.app) == ["music"])
        #expect(status.streams.map(\.verdict) == ["audible"])
    }

    @Test func silentSwitchShowsInStatusAndSilencesAnAmbientStream() async throws {
        let (switched, status, verdict) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let game = try daemon.client("game", .ambient)
                try game.startStream(1)
                let switched = daemon.ctl(["switch", "silent"])
                let verdict = try game.waitForEvent { $0.event == .streamVerdict && $0.verdict == "silent" }
                return withExtendedLifetime(game) { (switched, daemon.ctl(["status"]), verdict) }
            }
        }
        #expect(switched.status == 0 && switched.output.isEmpty && switched.errors.isEmpty)
        #expect(status.output.contains("silent switch: silent"))
        #expect(status.output.contains("yes      silent   speaker  the silent switch is on (O4)"))
        #expect(verdict?.stream == 1)
    }

    @Test func connectedHeadphonesAreListedAndPlaybackGoesThere() async throws {
        let (connected, list) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let music = try daemon.client("music", .playback)
                let connected = daemon.ctl(["route", "connect", "headphones"])
                return withExtendedLifetime(music) { (connected, daemon.ctl(["route", "list"])) }
            }
        }
        #expect(connected.status == 0)
        #expect(list.output.contains("outputs: speaker, headphones\n"))
        #expect(list.output.contains("selected output: none"))
        #expect(list.output.contains("music  playback  active  headphones  none"))
    }

    @Test func selectingAnUnavailablePortIsBadParam() async throws {
        let result = try await InProcessDaemon.with { daemon in
            try await onThread { daemon.ctl(["route", "select", "hdmi"]) }
        }
        #expect(result.status == 1)
        #expect(result.errors == "audiosessionctl: badParam: hdmi is not an available output; available: speaker\n")
    }

    @Test func selectingAnInputPortSaysItIsOneAndListsTheOutputs() async throws {
        let result = try await InProcessDaemon.with { daemon in
            try await onThread { daemon.ctl(["route", "select", "builtInMic"]) }
        }
        #expect(result.status == 1)
        #expect(
            result.errors
                == "audiosessionctl: badParam: builtInMic is an input port, not an output (the outputs are speaker, receiver, headphones, headset, bluetoothA2DP, bluetoothHFP, usbAudio, hdmi, lineOut, carAudio); available: speaker\n"
        )
    }

    @Test func explainNamesTheRule() async throws {
        let (byName, byNumber) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let music = try daemon.client("music", .playback)
                let podcast = try daemon.client("podcast", .playback)
                return withExtendedLifetime((music, podcast)) {
                    (daemon.ctl(["explain", "music"]), daemon.ctl(["explain", "1"]))
                }
            }
        }
        #expect(byName.status == 0)
        #expect(byName.output.contains("music is interrupted: interrupted by podcast (A4)"))
        #expect(byNumber.output == byName.output)
    }

    @Test func anUnknownSessionIsBadParam() async throws {
        let result = try await InProcessDaemon.with { daemon in
            try await onThread { daemon.ctl(["foreground", "nobody"]) }
        }
        #expect(result.status == 1)
        #expect(result.errors == "audiosessionctl: badParam: session: there is no session 'nobody'\n")
    }

    /// Off a terminal (here, a string) `watch` writes one line per change, each after its time.
    @Test func watchWritesALineForEachChange() async throws {
        let output = SharedText()
        let (watched, switched) = try await InProcessDaemon.with { daemon in
            async let watched = onThread {
                var sink = output
                var errors = ""
                return daemon.ctl(["watch", "--count", "2"], output: &sink, errors: &errors)
            }
            let switched = try await onThread {
                // Waits (at most 30 s) for watch's first view before changing something it must redraw.
                let deadline = ContinuousClock.now + .seconds(30)
                while !output.value.contains("status: switch ring") && ContinuousClock.now < deadline { usleep(10_000) }
                return daemon.ctl(["switch", "silent"])
            }
            return (try await watched, switched)
        }
        #expect(switched.status == 0)
        #expect(watched == 0)
        let lines = output.value.split(separator: "\n").map { $0.drop { $0 != " " }.dropFirst() }
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("status: switch ring;") == true)
        #expect(lines.last == "switch: silent")
    }

    @Test func runGivesTheChildItsSessionAndEndsIt() async throws {
        let (result, gone) = try await InProcessDaemon.with { daemon in
            try await onThread {
                let result = daemon.ctl([
                    "run", "--category", "playback", "--", "/bin/sh", "-c", "echo $PULSE_PROP; exit 3",
                ])
                return (result, try daemon.waitForStatus { $0.sessions.isEmpty })
            }
        }
        #expect(result.status == 3)
        #expect(result.output.range(of: #"(^| )audiosession\.id=1\n$"#, options: .regularExpression) != nil)
        #expect(gone)
    }

    @Test func runPrintsTheInterruptionsOfItsSession() async throws {
        // The child runs until the test lets it end (a file appears), once the daemon has interrupted its
        // session: no clock decides whether the interruption comes in time.
        let done = FileManager.default.temporaryDirectory.appendingPathComponent("run-done-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: done) }
        let result = try await InProcessDaemon.with { daemon in
            async let run = onThread {
                daemon.ctl([
                    "run", "--category", "playback", "--app", "music", "--",
                    "/bin/sh", "-c", "while [ ! -e '\(done)' ]; do sleep 0.05; done",
                ])
            }
            try await onThread {
                // The child ends on every way out of here, a failed wait too: else `run` would never return.
                defer { FileManager.default.createFile(atPath: done, contents: nil) }
                try #require(
                    try daemon.waitForStatus { $0.sessions.contains { $0.app == "music" && $0.state == .active } },
                    "run's session never became active"
                )
                let podcast = try daemon.client("podcast", .playback)
                try #require(
                    try daemon.waitForStatus { $0.sessions.contains { $0.app == "music" && $0.state == .interrupted } },
                    "the podcast did not interrupt run's session"
                )
                FileManager.default.createFile(atPath: done, contents: nil)
                try #require(
                    try daemon.waitForStatus(seconds: 15) { $0.sessions.count == 1 },
                    "run's session did not end with its child"
                )
                withExtendedLifetime(podcast) {}
            }
            return try await run
        }
        #expect(result.status == 0)
        #expect(result.errors.contains("run: interrupted by podcast (A4)\n"))
    }

    @Test func runRefusesAnIllegalOptionAndDoesNotStartTheChild() async throws {
        let result = try await InProcessDaemon.with { daemon in
            try await onThread {
                daemon.ctl(["run", "--category", "ambient", "--option", "defaultToSpeaker", "--", "/bin/echo", "ran"])
            }
        }
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(
            result.errors.hasPrefix(
                "audiosessionctl: badParam: option defaultToSpeaker cannot be used with category ambient"
            )
        )
    }

    /// Another user reaches the socket only if its mode is opened up, which root can do for the test.
    @Test(.enabled(if: AnotherUser.canRunTheTool, "needs root, setpriv and the built audiosessionctl"))
    func controlRequestsFromAnotherUserAreNotPermitted() async throws {
        let result = try await InProcessDaemon.with { daemon in
            chmod((daemon.socketPath as NSString).deletingLastPathComponent, 0o755)
            chmod(daemon.socketPath, 0o666)
            return try await onThread { try AnotherUser.ctl(["switch", "silent", "--socket", daemon.socketPath]) }
        }
        #expect(result.status == 1)
        #expect(
            result.errors
                == "audiosessionctl: notPermitted: setSilentSwitch is a control request; only user 0 may send it\n"
        )
    }
}

/// The built tool, run as user `nobody` with setpriv.
enum AnotherUser {
    static let tool = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/audiosessionctl"
    static let setpriv = "/usr/bin/setpriv"

    static var canRunTheTool: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
            && FileManager.default.isExecutableFile(atPath: tool)
    }

    static func ctl(_ arguments: [String]) throws -> CtlResult {
        try CtlResult.running(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + arguments)
    }
}
