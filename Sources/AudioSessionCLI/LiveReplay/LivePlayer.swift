import AudioSessionScenario
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A scenario's player (`mediaPlayer: true`, POLICY section 6b) played live: a real mpv with the mpv-mpris
/// plug-in, playing a generated tone into the replay's sound server and owning an MPRIS name on the bus the
/// daemon follows. The daemon finds it as it finds any player; the replay presses Play and Pause over MPRIS as
/// media keys do.
final class LivePlayer {
    /// Debian's mpv-mpris installs the plug-in here; `--no-config` loads no script by itself, so it is named.
    static let plugin = "/usr/lib/mpv-mpris/mpris.so"

    let program: SpawnedProgram
    /// Stopped (SIGSTOP) so that it answers nothing, for `answers: false`.
    private(set) var isStopped = false
    private var ended = false

    var processID: Int32 { program.pid }

    /// Starts mpv playing. Its stream has the file's `stream:` properties: `application.name` through
    /// `--audio-client-name`, the others through `PULSE_PROP` (its client's properties, which the server gives
    /// the stream where mpv sets none: mpv sets no `media.role`). `LiveReplayGate` has checked that the file
    /// asks for no `application.process.id` (it is mpv's, for the daemon to find the player).
    init(_ spec: SessionSpec, pulseServer: String?, sessionBus: String) throws {
        var properties = spec.declaration.unawareStreamProperties ?? [:]
        let name = properties.removeValue(forKey: "application.name") ?? spec.name
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus
        environment["PULSE_PROP"] = properties.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }
            .joined(separator: " ")
        if let pulseServer { environment["PULSE_SERVER"] = pulseServer }
        program = try SpawnedProgram(
            [
                "mpv", "--no-config", "--script=\(Self.plugin)", "--no-video", "--ao=pulse", "--no-terminal",
                "--audio-client-name=\(name)", "av://lavfi:sine=frequency=330",
            ],
            environment: environment,
            capture: false
        )
    }

    /// Why players cannot be played live on this machine, or nil when they can.
    static func missingParts() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let hasMpv = path.split(separator: ":").contains { access("\($0)/mpv", X_OK) == 0 }
        if !hasMpv { return "players are played by mpv, which is not installed (Debian: mpv)" }
        if access(plugin, R_OK) != 0 { return "players need mpv's MPRIS plug-in \(plugin) (Debian: mpv-mpris)" }
        return nil
    }

    /// `answers: false`: it takes nothing from the bus any more, the daemon's pause included; its stream
    /// stays as it was (running, so the daemon sees it play on).
    func stopAnswering() {
        guard !isStopped else { return }
        kill(program.pid, SIGSTOP)
        isStopped = true
    }

    /// Whether mpv has exited (it failed to start, or something ended it).
    var hasExited: Bool { ended || program.exitStatus() != nil }

    /// Ends mpv (continued first, if stopped), and reaps it: 5 s for SIGTERM, then SIGKILL.
    func stop() {
        guard !ended else { return }
        ended = true
        if program.exitStatus() != nil { return }
        kill(program.pid, SIGCONT)
        kill(program.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if program.exitStatus() != nil { return }
            usleep(20_000)
        }
        kill(program.pid, SIGKILL)
        var status: Int32 = 0
        waitpid(program.pid, &status, 0)
    }

    deinit { stop() }
}
