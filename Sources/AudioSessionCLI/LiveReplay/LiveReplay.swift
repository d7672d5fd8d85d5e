import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario
import DBusBackend
import Foundation

/// Where the running daemon and its sound server are, and how long to wait for them.
public struct LiveReplayOptions: Sendable {
    /// The daemon's control socket.
    public var socket: String
    /// The daemon's sound server (`unix:/path/native`); nil for libpulse's default (`$PULSE_SERVER`).
    public var pulseServer: String?
    /// The policy the daemon runs with: a scenario whose `config:` differs is skipped.
    public var daemonConfig: PolicyConfig
    /// How long an `expect` waits for the daemon and the server to get there before it fails.
    public var expectTimeout: Duration
    /// How long an `expect` with `notifications` waits for late ones, at most.
    public var notificationWait: Duration
    /// How long no new notification must arrive once they match, before they are taken as complete.
    public var notificationQuiet: Duration
    /// How many times longer than the scenarios' the daemon's timers are (its `graceMs` is the scenario's times
    /// this); every `wait:` is stretched as much. On a loaded machine a scale of 4 gives the checks around a
    /// grace period a margin of a second or more on each side.
    public var timeScale: Int
    /// The session bus the daemon follows players on (its `--session-bus`): a scenario's players are mpv on
    /// it. Nil: scenarios with players are skipped.
    public var sessionBus: String?

    public init(
        socket: String,
        pulseServer: String? = ProcessInfo.processInfo.environment["PULSE_SERVER"],
        daemonConfig: PolicyConfig = .standard,
        expectTimeout: Duration = .seconds(2),
        notificationWait: Duration = .milliseconds(300),
        notificationQuiet: Duration = .milliseconds(60),
        timeScale: Int = 1,
        sessionBus: String? = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
    ) {
        self.socket = socket
        self.pulseServer = pulseServer
        self.daemonConfig = daemonConfig
        self.expectTimeout = expectTimeout
        self.notificationWait = notificationWait
        self.notificationQuiet = notificationQuiet
        self.timeScale = max(1, timeScale)
        self.sessionBus = sessionBus
    }
}

/// `audiosessionctl replay --live`: the scenarios replayed against the running daemon with real streams on its
/// sound server, each expectation checked against what the daemon and the server report.
public enum LiveReplay {
    /// What became of one file.
    public enum Outcome: Sendable {
        case replayed(ScenarioResult)
        /// The scenario needs something a live replay cannot do; why.
        case skipped(String)
        /// The file could not be read.
        case unreadable(String)

        public var passed: Bool {
            if case .replayed(let result) = self { return result.passed }
            return false
        }
    }

    /// Replays every scenario under `paths`, writing results to `output`; true when none failed (skipped ones
    /// do not count as failures). Ends with `N passed, M failed, K skipped`. Before that, the sessions it made
    /// have ended and the switch, the lock and the output selection are as it found them; a cancelled task
    /// (a signal, for the command) stops at the next step and does the same.
    public static func run(
        paths: [String],
        options: LiveReplayOptions,
        timeline: Bool,
        explain: Bool,
        to output: inout some TextOutputStream
    ) async throws -> Bool {
        let files = try ScenarioLoader.scenarioFiles(in: paths)
        guard !files.isEmpty else {
            throw CLIError("no scenario files (*.yaml) under \(paths.joined(separator: ", "))")
        }
        let world = try await LiveWorld.connect(options)
        defer { world.close() }
        var (passed, failed, skipped) = (0, 0, 0)
        for file in files {
            if Task.isCancelled {
                failed += 1
                print("stopped before \(file): the replay was interrupted", to: &output)
                break
            }
            let outcome = await world.replay(file: file, timeline: timeline, explain: explain)
            switch outcome {
            case .skipped(let reason):
                skipped += 1
                print("skip \(file): \(reason)", to: &output)
            case .unreadable(let error):
                failed += 1
                print("FAIL \(file)\n  \(error)", to: &output)
            case .replayed(let result):
                if result.passed { passed += 1 } else { failed += 1 }
                print("\(result.passed ? "ok  " : "FAIL") \(file): \(result.scenario.name)", to: &output)
                for failure in result.failures { print(failure, to: &output) }
                if timeline || explain {
                    print(TimelineRenderer.render(result, explain: explain), to: &output)
                    print("", to: &output)
                }
            }
        }
        for problem in world.close() { print("warning: \(problem)", to: &output) }
        print("\(passed) passed, \(failed) failed, \(skipped) skipped", to: &output)
        return failed == 0
    }

    /// What becomes of a file that cannot run live against a daemon with `daemonConfig` (skipped, or
    /// unreadable); nil when it can.
    public static func outcomeWithoutDaemon(file: String, daemonConfig: PolicyConfig = .standard) -> Outcome? {
        if case .failure(let notLive) = LiveWorld.load(file, daemonConfig: daemonConfig, timeScale: 1) {
            return notLive.outcome
        }
        return nil
    }

    /// Replays one file against the daemon at `options.socket` (reached only if the file can run live).
    public static func replay(file: String, options: LiveReplayOptions, timeline: Bool = false, explain: Bool = false)
        async throws -> Outcome
    {
        let scenario: Scenario
        switch LiveWorld.load(file, daemonConfig: options.daemonConfig, timeScale: options.timeScale) {
        case .success(let loaded): scenario = loaded
        case .failure(let outcome): return outcome.outcome
        }
        let world = try await LiveWorld.connect(options)
        defer { world.close() }
        return await world.replay(scenario, timeline: timeline, explain: explain)
    }

    /// For the synchronous command: runs `run` on the concurrency pool and waits for it. SIGINT or SIGTERM
    /// cancels it: the replay stops at its next step, ends its sessions and puts the daemon back, and this
    /// throws `ExitCode(128 + the signal)`.
    static func runBlocking(
        paths: [String],
        options: LiveReplayOptions,
        timeline: Bool,
        explain: Bool
    ) throws -> Bool {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        return try SignalTrap.catching([SIGINT, SIGTERM]) {
            let replay = Task {
                var output = StandardOutput()
                do {
                    box.result = .success(
                        try await run(paths: paths, options: options, timeline: timeline, explain: explain, to: &output)
                    )
                } catch {
                    box.result = .failure(error)
                }
                fflush(nil)
                done.signal()
            }
            // The signal handler may only store the signal's number: this thread looks at it now and then.
            while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                if SignalTrap.received != 0 { replay.cancel() }
            }
            if SignalTrap.received != 0 { throw ExitCode(128 + SignalTrap.received) }
            return try box.result!.get()
        }
    }

    private final class ResultBox: @unchecked Sendable {
        var result: Result<Bool, any Error>?
    }
}

/// The daemon and its sound server, as a replay holds them: a control connection and a connection of its own
/// to the server.
final class LiveWorld {
    let options: LiveReplayOptions
    let control: ControlConnection
    let server: LiveSoundServer
    /// The switch, the lock and the output selection before the replay; nil once they are put back and the
    /// world is closed.
    private var found: LiveReplayFound?
    /// The replay's own connection to the session bus, for the players' Play and Pause; opened when first
    /// needed.
    private var bus: DBusConnection?

    private init(
        options: LiveReplayOptions,
        control: ControlConnection,
        server: LiveSoundServer,
        found: LiveReplayFound
    ) {
        self.options = options
        self.control = control
        self.server = server
        self.found = found
    }

    static func connect(_ options: LiveReplayOptions) async throws -> LiveWorld {
        let control: ControlConnection
        do {
            control = try ControlConnection(path: options.socket, readTimeout: .seconds(10))
        } catch {
            throw DaemonUnreachable(description: "\(error)")
        }
        let found = LiveReplayFound(try control.status())
        let server = try await LiveSoundServer.connect(server: options.pulseServer)
        return LiveWorld(options: options, control: control, server: server, found: found)
    }

    /// Puts the daemon back as the replay found it and leaves the sound server (the first time only); what
    /// could not be put back, in words. Every scenario's sessions have ended by then (`LiveScenarioRunner.run`
    /// closes their connections before it returns).
    @discardableResult
    func close() -> [String] {
        guard let found else { return [] }
        self.found = nil
        defer {
            server.close()
            bus?.close()
            bus = nil
        }
        return putBack(found)
    }

    func status() throws -> StatusBody { try control.status() }

    func playerBus() throws -> DBusConnection {
        if let bus { return bus }
        guard let address = options.sessionBus else { throw LiveScenarioRunner.noBusSkip }
        let opened = try DBusConnection(.address(address))
        bus = opened
        return opened
    }

    /// Loads, checks and replays one file.
    func replay(file: String, timeline: Bool, explain: Bool) async -> LiveReplay.Outcome {
        switch Self.load(file, daemonConfig: options.daemonConfig, timeScale: options.timeScale) {
        case .success(let scenario): await replay(scenario, timeline: timeline, explain: explain)
        case .failure(let outcome): outcome.outcome
        }
    }

    func replay(_ scenario: Scenario, timeline: Bool, explain: Bool) async -> LiveReplay.Outcome {
        await LiveScenarioRunner(scenario, world: self, timeline: timeline, explain: explain).run()
    }

    /// A scenario that can run live, or what became of the file instead.
    static func load(_ file: String, daemonConfig: PolicyConfig, timeScale: Int) -> Result<Scenario, NotLive> {
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: file)
        } catch {
            return .failure(NotLive(outcome: .unreadable("\(error)")))
        }
        if let reason = LiveReplayGate.reasonToSkip(scenario, daemonConfig: daemonConfig, timeScale: timeScale) {
            return .failure(NotLive(outcome: .skipped(reason)))
        }
        return .success(scenario)
    }

    struct NotLive: Error {
        var outcome: LiveReplay.Outcome
    }
}

/// A scenario cannot run here, for a reason found only on the way (the daemon has other apps' sessions, the
/// server has devices the replay cannot remove).
struct LiveSkip: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
