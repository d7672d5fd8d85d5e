import ArgumentParser
import AudioSessionDaemon
import AudioSessionPolicy
import AudioSessionScenario
import Logging

/// `audiosessiond`: the audio session policy daemon.
@main
struct AudioSessionDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audiosessiond",
        abstract: "Audio session policy daemon: decides who plays, and enforces it on PulseAudio streams."
    )

    @Option(help: "The control socket (default: $XDG_RUNTIME_DIR/audiosessiond/control).")
    var socket: String = DaemonOptions.defaultSocketPath

    @Option(help: "A policy configuration file (default: the built-in policy, as Config/policy.yaml ships it).")
    var config: String?

    @Option(help: "The PulseAudio server to enforce on, e.g. unix:/run/user/1000/pulse/native (default: libpulse's).")
    var pulseServer: String?

    @Flag(help: "Run without a sound server: policy and client-reported streams only.")
    var noSoundServer = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let policy = try config.map { try PolicyConfigLoader.load(path: $0) } ?? .standard
        var logger = Logger(label: "audiosessiond")
        logger.logLevel = logLevel
        try await Daemon.run(
            DaemonOptions(socketPath: socket, policy: policy, pulseServer: pulseServer, soundServer: !noSoundServer),
            logger: logger
        )
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
