import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// A second daemon on the socket of a running one refuses to start, saying so in one line, and the first one
/// keeps serving; a socket file left by a daemon killed with SIGKILL is replaced by the next one.
@Suite(.timeLimit(.minutes(3))) struct SocketTakeoverTests {
    @Test func aSecondDaemonOnARunningOnesSocketRefusesAndAStaleSocketIsReplaced() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("takeover-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/control"
        func daemon(_ state: String) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
            process.arguments = ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", directory + "/" + state]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try ChildProcess.newFile(directory + "/\(state).log")
            try ChildProcess.launch(process)
            return process
        }
        let answers: @Sendable () -> Bool = {
            (try? ControlConnection(path: socket, readTimeout: .seconds(60)).result(Request(.status))) != nil
        }

        let first = try daemon("first")
        defer { first.stop() }
        try await eventually("the first daemon listens on \(socket)") { answers() }

        let second = try await ChildProcess.run(
            URL(fileURLWithPath: LiveDaemon.daemonPath),
            ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", directory + "/second"],
            environment: ProcessInfo.processInfo.environment,
            timeout: .seconds(30)
        )
        #expect(second.status != 0)
        #expect(second.standardError.contains("another audiosessiond is already listening on \(socket)"), "\(second.standardError)")
        #expect(answers(), "the first daemon still serves its socket")

        // SIGKILL leaves the socket file behind; the next daemon replaces it and says why.
        kill(first.processIdentifier, SIGKILL)
        #expect(await first.exited(within: .seconds(10)))
        #expect(FileManager.default.fileExists(atPath: socket))
        #expect(!answers())
        let third = try daemon("third")
        defer { third.stop() }
        try await eventually("the third daemon listens on \(socket)") { answers() }
        let log = try String(contentsOfFile: directory + "/third.log", encoding: .utf8)
        #expect(log.contains("was left by a daemon that did not end cleanly; replacing it"), "\(log)")
    }
}
