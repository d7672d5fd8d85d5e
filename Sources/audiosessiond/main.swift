import ArgumentParser
import AudioSessionDaemon
import Dispatch
import FoundationEssentials
import AudioSessionPolicy
import AudioSessionConfiguration
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// `audiosessiond`: the audio session policy daemon.
@main
struct AudioSessionDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosessiond",
        abstract: "Audio session policy daemon: decides who plays, and enforces it on PulseAudio streams.",
        discussion: "SIGHUP reloads the configuration file; SIGTERM and SIGINT stop the daemon, which first gives every stream back its user's volume and mute. Under systemd (docs/SYSTEMD.md) it notifies NOTIFY_SOCKET (Type=notify, WatchdogSec=) and serves the socket systemd passes (LISTEN_FDS) instead of --socket. The configuration file's keys are described in audiosessiond-policy.yaml(5)."
    )

    @Option(help: "The control socket (default: the configuration's, else $AUDIOSESSIOND_SOCKET, else $XDG_RUNTIME_DIR/audiosessiond/control, or /tmp/audiosessiond-UID/audiosessiond/control without XDG_RUNTIME_DIR).")
    var socket: String?

    @Option(help: "The configuration file, described in audiosessiond-policy.yaml(5) (default: the built-in one, as Config/policy.yaml ships it).")
    var config: String?

    @Option(name: .customLong("check-config"), help: ArgumentHelp("Check a configuration file and exit: 0 when it is valid, 1 with its errors.", valueName: "file"))
    var checkConfig: String?

    @Option(help: "The PulseAudio server to enforce on, e.g. unix:/run/user/1000/pulse/native (default: libpulse's).")
    var pulseServer: String?

    @Flag(help: "Run without a sound server: policy, client-reported streams, and the ALSA mixer and jacks of the configuration's `alsa` section.")
    var noSoundServer = false

    @Flag(help: "With --no-sound-server: leave the ALSA mixer and jack controls alone.")
    var noAlsa = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: the configuration's).")
    var logLevel: Logger.Level?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where the settings, the stream journal and the event log are kept (default: $STATE_DIRECTORY, else /var/lib/audiosessiond as root, else $XDG_STATE_HOME/audiosessiond or ~/.local/state/audiosessiond).",
            valueName: "dir"
        )
    )
    var stateDir: String?

    @Option(help: ArgumentHelp("The session bus, for feedbackd, the screensaver and media players (MPRIS) (default: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus when it is there; none: no session bus).", valueName: "address"))
    var sessionBus: String?

    @Option(help: ArgumentHelp("The system bus, for logind (default: $DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket when it is there; none: no system bus).", valueName: "address"))
    var systemBus: String?

    @Option(help: ArgumentHelp("The logind session whose lock is followed (default: $XDG_SESSION_ID, else the daemon's own).", valueName: "id"))
    var logindSession: String?

    @Option(
        name: .customLong("dbus-interface"),
        help: ArgumentHelp(
            "Where the daemon's D-Bus interface org.audiosessiond.Daemon1 is served: session, system, none, or a bus address such as unix:path=/run/x/bus (default: session).",
            valueName: "bus"
        )
    )
    var dbusInterface: DBusFaceBus = .session

    /// The daemon runs on Swift's concurrency pool while the main thread waits for it. Not an `async` main: the
    /// runtime gives an async main's thread to `dispatch_main`, which ends it with `pthread_exit`, and that unwinds
    /// the thread's stack through the binary's unwind tables, binary searches that left about 0.9 MB of them mapped
    /// for the daemon's whole life (docs/BENCHMARKS.md, "Last run on this machine"). Nothing of the daemon's runs
    /// on the main actor.
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        // Detached: a task made here would belong to the main actor, whose thread is the one that waits.
        Task.detached {
            await runFromCommandLine()
            finished.signal()
        }
        finished.wait()
    }

    /// As argument-parser's own entry point, except that a wrong command line is one line on standard error,
    /// `audiosessiond: WHAT; see `audiosessiond --help``, with exit status 2 (as `audiosessionctl`, docs/CLI.md).
    private static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if let daemon = command as? Self {
                try await daemon.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            // argument-parser words the error on several lines, a list of values as `- value` lines.
            let lines = message(for: error).split(separator: "\n").map { $0.trimmingWhitespace }
            let values = lines.filter { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }.joined(separator: ", ")
            let message = (lines.first ?? "bad usage") + (values.isEmpty ? "" : " \(values)")
            let what = message.prefix(1).lowercased() + message.dropFirst()
            complain("audiosessiond: \(what); see `audiosessiond --help`")
            Glibc.exit(2)
        }
    }

    func run() async throws {
        if let file = checkConfig {
            // Every issue of the file, one per line (`file:line:column: field: ...`), then `file: N errors`.
            do {
                _ = try DaemonConfigurationLoader.load(path: file)
                print("\(file): valid")
                return
            } catch {
                print("\(error)")
                throw ExitCode.failure
            }
        }
        let configuration: DaemonConfiguration
        do {
            configuration = try config.map { try DaemonConfigurationLoader.load(path: $0) } ?? .standard
        } catch let error as ConfigurationError {
            Self.complain("\(error)\naudiosessiond: not started: the configuration file has errors")
            throw ExitCode.failure
        } catch {
            Self.complain("audiosessiond: \(error)")
            throw ExitCode.failure
        }
        LogOutput.bootstrap()
        var logger = Logger(label: "audiosessiond")
        logger.logLevel = logLevel ?? Logger.Level(rawValue: configuration.logLevel) ?? .info
        LogOutput.level.current = logger.logLevel
        let systemd: SystemdEnvironment
        do {
            systemd = try SystemdEnvironment.take()
        } catch {
            Self.complain("audiosessiond: \(error)")
            throw ExitCode.failure
        }
        do {
            try await serve(systemd: systemd, configuration: configuration, logger: logger)
        } catch let refusal as StateDirectory.Refusal {
            // Not served from: one line saying which directory and what is wrong with it, status 1.
            Self.complain("audiosessiond: not started: \(refusal)")
            throw ExitCode.failure
        }
    }

    /// The buses of the environment, or of the command line (`none` for no bus).
    private var buses: PlatformBuses {
        var buses = PlatformBuses.fromEnvironment()
        if let sessionBus { buses.session = sessionBus == "none" ? nil : sessionBus }
        if let systemBus { buses.system = systemBus == "none" ? nil : systemBus }
        if let logindSession { buses.logindSession = logindSession }
        return buses
    }

    private func serve(systemd: SystemdEnvironment, configuration: DaemonConfiguration, logger: Logger) async throws {
        try await Daemon.run(
            DaemonOptions(
                socketPath: socket,
                configuration: configuration,
                configurationPath: config,
                pulseServer: pulseServer,
                soundServer: !noSoundServer,
                alsa: noSoundServer && !noAlsa,
                stateDirectory: stateDir ?? StateDirectory.defaultPath(),
                systemd: systemd,
                logLevelFromCommandLine: logLevel != nil,
                buses: buses,
                dbusFace: dbusInterface
            ),
            logger: logger
        )
    }
}

extension AudioSessionDaemonCommand {
    /// Why the daemon did not start, on standard error (where systemd's journal and a terminal both show it).
    static func complain(_ text: String) {
        writeToStandardError(text + "\n")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension DBusFaceBus: ExpressibleByArgument {}
