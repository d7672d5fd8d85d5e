import AudioSessionTestSupport
import Foundation
import Testing

/// Every descriptor is closed exactly once. A second close of a number can hit a descriptor another thread has
/// just been given (libpulse's, which then aborts in `pa_make_fd_cloexec`), so a close that fails with EBADF is
/// a bug even when nothing else shows it. Checked with strace on the command-line tool's failure paths, where
/// a throwing initializer once closed its socket a second time from `deinit`.
@Suite(.timeLimit(.minutes(3))) struct DescriptorTests {
    static var ctlPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("audiosessionctl")
            .path
    }

    @Test(arguments: [["status", "--socket", "/nonexistent/audiosessiond/control"], ["status", "--socket", "/"]])
    func aFailedConnectionClosesItsSocketOnce(_ arguments: [String]) throws {
        let strace = try #require(ChildProcess.executable(named: "strace"), "strace is not installed (make deps)")
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("strace-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let output = try ChildProcess.run(
            strace,
            ["-f", "-qq", "-e", "trace=close,dup2,dup3", "-o", trace, Self.ctlPath] + arguments,
            environment: ProcessInfo.processInfo.environment,
            timeout: .seconds(30)
        )
        #expect(output.status != 0, "audiosessionctl should fail without a daemon: \(output.standardOutput)")
        #expect(output.standardError.contains("cannot reach audiosessiond"), "\(output.standardError)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8)
        let doubleCloses = calls.split(separator: "\n").filter { $0.contains("EBADF") }
        #expect(calls.contains("close("), "strace saw no close at all")
        #expect(doubleCloses.isEmpty, "closed twice: \(doubleCloses.joined(separator: "; "))")
    }
}
