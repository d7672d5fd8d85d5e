import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// A real `audiosessiond` process on a private sound server, and an observer connection of its own that
/// reads what the server reports, as an independent client would.
final class LiveDaemon: @unchecked Sendable {
    let server: PrivateSoundServer
    let socket: String
    let process: Process
    let observer: PulseConnection
    let tone: String
    let shortTone: String

    /// The daemon binary, built beside this test bundle (`make test` builds every product first).
    static var daemonPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("audiosessiond").path
    }

    /// `environment`: more of the daemon's environment (a private session bus); `configuration`: the text of a
    /// configuration file for it (`--config`).
    init(
        _ kind: PrivateSoundServer.Kind, extraModules: [String] = [], arguments: [String] = [],
        environment: [String: String] = [:], configuration: String? = nil
    ) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.daemonPath) else {
            throw LiveTestError("no daemon binary at \(Self.daemonPath): build every product first (`swift build`)")
        }
        server = try await PrivateSoundServer.start(kind, extraModules: extraModules)
        socket = server.directory + "/control"
        tone = server.directory + "/tone.wav"
        shortTone = server.directory + "/short.wav"
        try PrivateSoundServer.writeTone(to: tone, seconds: 60, frequency: 330)
        try PrivateSoundServer.writeTone(to: shortTone, seconds: 0.6)
        // A state directory of its own, so that daemons of parallel tests do not share (nor lock) the default.
        let state = server.directory + "/state"
        var arguments = arguments
        do {
            if let configuration {
                let path = server.directory + "/policy.yaml"
                try configuration.write(toFile: path, atomically: true, encoding: .utf8)
                arguments += ["--config", path]
            }
            process = try server.spawn(
                Self.daemonPath, ["--socket", socket, "--pulse-server", server.pulseServer, "--state-dir", state] + arguments,
                environment: environment)
        } catch {
            server.stop()
            throw error
        }
        observer = PulseConnection(server: server.pulseServer, applicationName: "observer")
        do {
            try await observer.connect()
            let socket = socket
            try await eventually("the daemon listens on \(socket)") { (try? ControlConnection(path: socket, readTimeout: .seconds(60))) != nil }
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        if process.isRunning {
            process.stop()
        }
        observer.close()
        server.stop()
    }

    /// What the daemon has logged so far (its standard error, in the server's directory).
    func daemonLog() -> String {
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: server.directory)) ?? []
        guard let log = logs.first(where: { $0.hasSuffix("-audiosessiond.log") }) else { return "" }
        return (try? String(contentsOfFile: server.directory + "/" + log, encoding: .utf8)) ?? ""
    }

    /// Returns once the daemon's status lists the headphones: once it has taken the server's inventory (it listens
    /// on its socket before, so a session active meanwhile gets the route change of the devices being reported), or
    /// once it has the headphones back after they were unplugged.
    func untilTheServersDevicesAreKnown() async throws {
        let socket = socket
        try await eventually("the daemon has the server's devices") {
            let status = try? ControlConnection(path: socket, readTimeout: .seconds(60)).result(Request(.status)).status
            return status?.outputs.contains(.headphones) == true
        }
    }

    func client() throws -> ControlConnection { try ControlConnection(path: socket, readTimeout: .seconds(60)) }

    /// Plays `file` (the long tone by default) as an app that knows nothing of audio sessions.
    func play(role: String, file: String? = nil, properties: String = "") throws -> Process {
        try server.spawn("paplay", [file ?? tone], environment: ["PULSE_PROP": "media.role=\(role) \(properties)"])
    }

    /// The sink-input playing with this role, once it is there.
    func stream(role: String) async throws -> PulseSinkInput {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            // PipeWire shows a new stream at volume 0 until its node's volume arrives: a test that reads the
            // user's volume from the stream it gets here must not read that.
            if let found = try await observer.sinkInputs().first(where: { $0.properties["media.role"] == role }),
                found.volume.average > 0
            {
                return found
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw LiveTestError("no \(role) stream with a volume above 0 appeared within 15 s")
    }

    func current(_ index: UInt32) async throws -> PulseSinkInput? { try await observer.sinkInput(index) }

    func sinkIndex(named name: String) async throws -> UInt32? {
        try await observer.sinks().first { $0.name == name }?.index
    }
}

struct LiveTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `seconds`; fails naming what was awaited.
func eventually(
    _ what: String,
    within seconds: Double = 15,
    _ condition: @escaping @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    // Once more after the deadline: a test task starved by a busy machine may not have looked in time.
    if try await condition() { return }
    throw LiveTestError("timed out after \(seconds) s waiting until \(what)")
}

/// The policy's silence as a client sees it: the daemon holds a stream silent with a volume of 0 (a gain layer of
/// 0 on the user's volume, as ducking is one of 0.25) and leaves the mute flag to the user; a stream is silent
/// when either is so.
extension PulseSinkInput {
    var isSilenced: Bool { muted || volume.average == 0 }
}

extension PulseSourceOutput {
    var isSilenced: Bool { muted || volume.average == 0 }
}

extension PulseVolume {
    /// What the policy writes to silence a stream of this volume's channels: 0 on each.
    var silenced: PulseVolume { PulseVolume(channels: channels.map { _ in 0 }) }
}
