import ArgumentParser
import AudioSessionScenario

/// `audiosessionctl replay [--live] FILE|DIR...`: replays scenarios against the engine, or against the running
/// daemon with real streams; exits 0 only if none fails.
struct ReplayCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay scenario files against the policy engine, or live against the running daemon.",
        discussion: """
            Directories are searched for *.yaml files. Exits 0 only when every scenario passes. With --live, each \
            scenario is played with real streams on the daemon's sound server and checked against what the daemon \
            and the server report; scenarios that cannot run live are skipped with their reason. With --svg, one \
            scenario is also drawn as a picture: a lane per session over the steps, the reasons on hover.
            """
    )

    @Argument(help: "Scenario files or directories.")
    var paths: [String]

    @Flag(help: "Print a table of every step: each session's state, output and route.")
    var timeline = false

    @Flag(help: "With the timeline, say why each session is as it is; on failure, always shown.")
    var explain = false

    @Option(
        help: ArgumentHelp(
            "Also draw the replay as an SVG picture into this file (one scenario file only).",
            valueName: "file"
        )
    )
    var svg: String?

    @Flag(help: "Replay against the running daemon, with real streams on its sound server.")
    var live = false

    @Option(help: ArgumentHelp("With --live: the daemon's control socket.", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("With --live: the daemon's sound server (default: $PULSE_SERVER).", valueName: "addr"))
    var pulseServer: String?

    @Option(
        help: ArgumentHelp(
            "With --live: the daemon runs with timers N times the scenarios' (graceMs N x 500, playerTimeoutMs N x 250): waits are stretched N times.",
            valueName: "N"
        )
    )
    var timeScale: Int = 1

    @Option(
        help: ArgumentHelp(
            "With --live: the session bus the daemon follows players on; the scenarios' players are mpv there (default: $DBUS_SESSION_BUS_ADDRESS).",
            valueName: "addr"
        )
    )
    var sessionBus: String?

    func validate() throws {
        if !live && (socket != nil || pulseServer != nil || timeScale != 1 || sessionBus != nil) {
            throw ValidationError("--socket, --pulse-server, --session-bus and --time-scale go with --live")
        }
        guard (1...100).contains(timeScale) else {
            throw ValidationError("--time-scale must be a whole number from 1 to 100, not \(timeScale)")
        }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        if live {
            if svg != nil {
                throw ValidationError("--svg draws a replay against the engine; it does not go with --live")
            }
            var options = LiveReplayOptions(socket: socket ?? ConnectionOptions.defaultSocketPath)
            if let pulseServer { options.pulseServer = pulseServer }
            options.timeScale = timeScale
            options.daemonConfig.graceMs *= timeScale
            options.daemonConfig.playerTimeoutMs *= timeScale
            if let sessionBus { options.sessionBus = sessionBus }
            let passed = try LiveReplay.runBlocking(
                paths: paths,
                options: options,
                timeline: timeline,
                explain: explain
            )
            return passed ? 0 : 1
        }
        let passed = try Replay.run(paths: paths, timeline: timeline, explain: explain, svg: svg, to: &output)
        return passed ? 0 : 1
    }
}

/// The replay itself, callable from tests with any output.
public enum Replay {
    /// Replays every scenario under `paths`, writing results to `output`; true when all passed. A file that
    /// cannot be read counts as a failure and the others still run. With `svg`, `paths` must name exactly one
    /// scenario file, and its replay is drawn into the file `svg`, passed or failed.
    public static func run(
        paths: [String],
        timeline: Bool,
        explain: Bool,
        svg: String? = nil,
        to output: inout some TextOutputStream
    ) throws -> Bool {
        let files = try ScenarioLoader.scenarioFiles(in: paths)
        guard !files.isEmpty else {
            throw ValidationError("no scenario files (*.yaml) under \(paths.joined(separator: ", "))")
        }
        if svg != nil && files.count != 1 {
            let named = paths.joined(separator: " ")
            throw ValidationError("--svg draws one scenario; \(named) name \(files.count) scenario files: name one")
        }
        var failed = 0
        for file in files {
            let scenario: Scenario
            do {
                scenario = try ScenarioLoader.load(path: file)
            } catch {
                failed += 1
                print("FAIL \(file)\n  \(error)", to: &output)
                if let svg { print("not drawn \(svg): the scenario did not load", to: &output) }
                continue
            }
            let result = ScenarioRunner.run(scenario)
            print("\(result.passed ? "ok  " : "FAIL") \(file): \(scenario.name)", to: &output)
            for failure in result.failures { print(failure, to: &output) }
            if !result.passed { failed += 1 }
            if timeline || explain {
                print(TimelineRenderer.render(result, explain: explain), to: &output)
                print("", to: &output)
            }
            if let svg {
                try TimelineFile.write(TimelineSVG.draw(result), to: svg)
                let size = "\(result.names.names.count) sessions over \(result.timeline.count) steps"
                print("drew \(svg): \(size)", to: &output)
            }
        }
        print("\(files.count - failed) passed, \(failed) failed", to: &output)
        return failed == 0
    }
}

/// Standard output as a `TextOutputStream`.
struct StandardOutput: TextOutputStream {
    /// Not read: a stored property, so that the type is not empty (see `StandardError`).
    private let descriptor: Int32 = 1
    mutating func write(_ string: String) { print(string, terminator: "") }
}
