import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI

/// The daemon on a session bus closes every descriptor once: its bus connection, the eventfd that wakes the
/// connection's thread, and a connection to a bus that is not there. Checked with strace, as `DescriptorTests`.
@Suite(.timeLimit(.minutes(4))) struct BusDescriptorTests {
    @Test func theDaemonOnABusClosesEachDescriptorOnce() async throws {
        let strace = try #require(ChildProcess.executable(named: "strace"), "strace is not installed (make deps)")
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let directory = bus.directory
        let trace = directory + "/strace"
        let socket = directory + "/control"
        let process = Process()
        process.executableURL = strace
        process.arguments = [
            "-f", "-qq", "-e", "trace=close,dup2,dup3,eventfd2", "-o", trace, LiveDaemon.daemonPath,
            "--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", directory + "/state",
            // A session bus that is there, and a system bus that is not (auto then tries logind on it).
            "--session-bus", bus.address, "--system-bus", "unix:path=\(directory)/no-system-bus",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try ChildProcess.newFile(directory + "/daemon.log")
        try ChildProcess.launch(process)
        defer { process.stop() }
        // A connection, not the socket file: the file is there from bind(), a moment before listen().
        try await eventually("the daemon listens", within: 30) { (try? ControlConnection(path: socket, readTimeout: .seconds(60))) != nil }
        // The daemon is strace's child; SIGTERM to it is a normal shutdown, and strace ends with it.
        let children = try String(
            contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
            encoding: .utf8
        )
        let daemon = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "no daemon under strace")
        kill(daemon, SIGTERM)
        #expect(await process.exited(within: .seconds(30)), "the daemon did not end on SIGTERM")
        let calls = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(calls.contains("eventfd2("), "strace saw no eventfd: the daemon made no bus connection")
        let doubleCloses = calls.split(separator: "\n").filter { $0.contains("EBADF") }
        #expect(doubleCloses.isEmpty, "closed twice: \(doubleCloses.joined(separator: "; "))")
    }
}
