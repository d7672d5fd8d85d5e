import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A program started by `run`. Its standard output and error are the tool's own, or, when the tool writes to
/// something else (a test's string), captured in files and handed over when it has exited.
final class SpawnedProgram {
    let pid: pid_t
    private let captureFiles: (output: String, errors: String)?

    /// Starts `arguments[0]` (searched in PATH) with `environment`.
    init(_ arguments: [String], environment: [String: String], capture: Bool) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if capture {
            let directory = FileManager.default.temporaryDirectory.path
            let files = (
                output: "\(directory)/audiosessionctl-\(getpid())-\(UUID().uuidString).out",
                errors: "\(directory)/audiosessionctl-\(getpid())-\(UUID().uuidString).err"
            )
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, files.output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, files.errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            captureFiles = files
        } else {
            captureFiles = nil
        }
        // The child starts with the usual signal handling, whatever this process has caught or blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGCHLD, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        // One spawn at a time in the process: a test runs this in-process beside Foundation's spawns, whose
        // exit-watch socket a child started meanwhile would inherit (Spawning says how that hid an exit).
        let failure = Spawning.oneAtATime { posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp) }
        guard failure == 0 else {
            captureFiles.map {
                unlink($0.output); unlink($0.errors)
            }
            throw SpawnFailure(program: arguments[0], errorNumber: failure)
        }
        self.pid = pid
    }

    /// The exit status once the child has ended (128 + the signal's number if a signal ended it), else nil.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        // No such child any more: someone else reaped it (SIGCHLD ignored); its status is lost.
        if waited == -1 && errno == ECHILD { return 1 }
        guard waited == pid else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// What the child wrote, when captured; empty otherwise. Call once, after it has ended.
    func takeCapturedOutput() -> (output: String, errors: String) {
        guard let files = captureFiles else { return ("", "") }
        defer {
            unlink(files.output)
            unlink(files.errors)
        }
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (text(files.output), text(files.errors))
    }
}

/// A program `run` could not start, and the status the tool then exits with, as a shell would: 127 when it is
/// not found, 126 when it is found but cannot be run.
struct SpawnFailure: Error, CustomStringConvertible {
    var program: String
    var errorNumber: Int32

    var exitStatus: Int32 { errorNumber == ENOENT ? 127 : 126 }

    var description: String {
        let advice = errorNumber == ENOENT ? "check its name and PATH" : "check that it is an executable file"
        return "cannot run \(program): \(String(cString: strerror(errorNumber))); \(advice)"
    }
}
