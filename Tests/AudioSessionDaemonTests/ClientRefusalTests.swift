import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// The client library when the daemon refuses it for good: an app that declares a call (`isCall: true`) without
/// being the daemon's user or root gets `notPermitted` from its first call, at once, and the library does not
/// keep trying. The VoIP example is that app, run as `nobody` against a daemon whose socket anyone may use.
@Suite(.timeLimit(.minutes(4))) struct ClientRefusalTests {
    static let examples = (CommandLine.arguments[0] as NSString).deletingLastPathComponent

    @Test func anUntrustedCallAppIsRefusedAtOnceAndNotRetried() async throws {
        let voip = Self.examples + "/voip-call"
        try #require(FileManager.default.isExecutableFile(atPath: voip), "build every product first: \(voip)")
        try #require(getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
        // A folder and a socket anyone may reach (the daemon keeps a folder it did not create as it is).
        let folder = FileManager.default.temporaryDirectory.path + "/refusal-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755]
        )
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = folder + "/open.yaml"
        try "socket: { mode: \"0666\" }\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let socket = folder + "/control"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
        daemon.arguments = [
            "--no-sound-server", "--no-alsa", "--config", configuration, "--socket", socket, "--state-dir",
            folder + "/state",
        ]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try ChildProcess.launch(daemon)
        // Not waited for: a blocking wait would hold one of the test pool's few threads.
        defer { daemon.terminate() }
        // A connection, not the socket file: the file is there from bind(), a moment before listen().
        try await eventually("the daemon listens") { (try? ControlConnection(path: socket, readTimeout: .seconds(60))) != nil }

        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        app.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", voip]
        app.environment = ["AUDIOSESSIOND_SOCKET": socket, "TMPDIR": folder, "PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        app.standardOutput = FileHandle.nullDevice
        app.standardError = errors
        try ChildProcess.launch(app)
        try await eventually("the app ends", within: 10) { !app.isRunning }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(app.terminationStatus != 0)
        #expect(text.contains("notPermitted"), "the app is told why: \(text.prefix(400))")
        #expect(!text.contains("cannot reach"), "a refusal is not a daemon to wait for: \(text.prefix(400))")
    }
}
