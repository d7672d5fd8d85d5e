import AudioSessionTestSupport
import Foundation

/// The one private PulseAudio of this test target, started by the first test that needs it and stopped when the
/// test process exits.
///
/// One server for all: the ALSA `pulse` plug-in finds the server through `PULSE_SERVER` in the environment of
/// this process, which every test shares, so the device tests run one after another in the serialized
/// `AlsaDeviceTests` suite against this server, and nothing else in this target opens an ALSA device.
enum SharedPulseServer {
    private static let started: Result<PrivateSoundServer, any Error> = {
        do {
            let server = try PrivateSoundServer.start(.pulseaudio)
            // Before the first ALSA call that reaches PulseAudio: libpulse reads it when the plug-in connects.
            setenv("PULSE_SERVER", server.pulseServer, 1)
            atexit { SharedPulseServer.stopAtExit() }
            return .success(server)
        } catch {
            return .failure(error)
        }
    }()

    /// The server; throws (failing the test, never skipping it) if it could not start.
    static func server() throws -> PrivateSoundServer {
        do {
            return try started.get()
        } catch {
            throw StartFailed(underlying: error)
        }
    }

    private static func stopAtExit() {
        if case .success(let server) = started { server.stop() }
    }

    struct StartFailed: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String {
            "the private PulseAudio for the ALSA `pulse` plug-in tests could not start: \(underlying)"
        }
    }
}

/// A new empty directory for one test's files, removed by the caller with `removeDirectory`.
func makeScratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("alsa-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Runs `body` until it returns true or `seconds` pass; returns whether it did.
func eventually(within seconds: Double = 3, _ body: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try body() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try body()
}
