import AudioSessionTestSupport
import Foundation

/// A private PulseAudio for one test (the project's shared `PrivateSoundServer`), with module-stream-restore
/// when asked: the tests here only need its address, and to kill or freeze it.
final class PrivatePulseServer: Sendable {
    let shared: PrivateSoundServer
    /// The address to give libpulse, e.g. `unix:/tmp/.../native`.
    var server: String { shared.pulseServer }

    private init(_ shared: PrivateSoundServer) { self.shared = shared }

    static func start(streamRestore: Bool = false) async throws -> PrivatePulseServer {
        PrivatePulseServer(try await PrivateSoundServer.start(.pulseaudio, extraModules: streamRestore ? ["module-stream-restore"] : []))
    }

    /// Stops the server for good (SIGKILL), as a crash would.
    func kill() { try? shared.kill() }

    /// Freezes the server (SIGSTOP): requests then stay pending.
    func freeze() { try? shared.freeze() }

    func stop() { shared.stop() }
}

/// Runs `body` with a fresh private server, stopping it afterwards whatever happens.
func withPrivatePulseServer<Result>(
    streamRestore: Bool = false,
    _ body: (PrivatePulseServer) async throws -> Result
) async throws -> Result {
    let server = try await PrivatePulseServer.start(streamRestore: streamRestore)
    defer { server.stop() }
    return try await body(server)
}
