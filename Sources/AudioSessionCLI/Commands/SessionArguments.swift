import AlsaBackend
import ArgumentParser
import AudioSessionClient
import AudioSessionPlayback
import AudioSessionPolicy

/// The session a `play` or `record` declares: category, mode, options, app name, media controls.
struct SessionArguments: ParsableArguments {
    @Option(help: "The session's category.")
    var category: AudioSessionPolicy.Category

    @Option(help: "The session's mode.")
    var mode: Mode = .default

    @Option(name: .customLong("option"), help: "A category option; repeat for several.")
    var options: [CategoryOptionArgument] = []

    @Option(help: "media: resume after an interruption only when told it may (a player); none: always (a game).")
    var controls: TransportRules.Controls = .media

    @Option(help: "The app's name (default: audiosessionctl).")
    var app: String?

    @Option(help: "The ALSA device.")
    var device: String = "default"

    /// A session on the daemon's socket; nothing is sent until `declare`.
    func session(on socket: String) -> AudioSession {
        AudioSession(socketPath: socket, appName: app ?? "audiosessionctl")
    }

    /// Declares the category, mode and options asked for.
    func declare(_ session: AudioSession) throws {
        try session.setCategory(
            category,
            mode: mode,
            options: options.reduce(into: CategoryOptions()) { $0.insert($1.option) }
        )
    }
}

extension TransportRules.Controls: ExpressibleByArgument {}

/// Opens a player or recorder; a device that is not there gets a hint on how to find one.
func openingDevice<Value>(_ device: String, _ open: () throws -> Value) throws -> Value {
    do {
        return try open()
    } catch let error as AlsaError where error.code == .deviceNotFound {
        throw CLIError(
            "\(error.message); `aplay -L` lists the ALSA devices (`default` needs a sound card, or a sound server to reach through ALSA's pulse plug-in)"
        )
    }
}
