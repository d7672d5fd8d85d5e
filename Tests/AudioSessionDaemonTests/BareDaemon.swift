import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation

@testable import AudioSessionCLI

/// The built `audiosessiond` as a process of its own, without a sound server or ALSA, on a socket in a fresh
/// folder: for what must be measured from outside (its memory) or done to it (SIGSTOP).
final class BareDaemon: @unchecked Sendable {
    let folder: String
    let socket: String
    let process: Process
    var log: String { (try? String(contentsOfFile: folder + "/daemon.log", encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }

    init(name: String) async throws {
        folder = FileManager.default.temporaryDirectory.path + "/\(name)-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        socket = folder + "/run/control"
        process = Process()
        process.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
        process.arguments = ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", folder + "/state"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try ChildProcess.newFile(folder + "/daemon.log")
        try ChildProcess.launch(process)
        let socket = socket
        do {
            try await eventually("the daemon answers on \(socket)") {
                (try? ControlConnection(path: socket, readTimeout: .seconds(60)).result(Request(.status))) != nil
            }
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        kill(process.processIdentifier, SIGCONT)
        process.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func status() throws -> StatusBody { try ControlConnection(path: socket, readTimeout: .seconds(60)).status() }
}
