import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A child process started with `posix_spawn` and reaped with non-blocking `waitpid`, so waiting never ties up a
/// cooperative thread. (Foundation's `Process` misreads pulseaudio closing its inherited descriptors as its exit and
/// then blocks in `waitpid`, hanging every other `Process`.)
final class ChildProcess: Sendable {
    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Starts `path` with `arguments` and exactly `environment`, with standard input and output on /dev/null.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else {
            throw SpawnFailure(description: "posix_spawn \(path): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid)
    }

    /// The raw wait status once the process has exited (reaping it), nil while it runs.
    var exitStatus: Int32? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            }
            return status
        }
    }

    var isRunning: Bool { exitStatus == nil }

    /// Whether it exited normally with status 0.
    var succeeded: Bool {
        guard let raw = exitStatus else { return false }
        return raw & 0x7f == 0 && (raw >> 8) & 0xff == 0
    }

    func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits up to `timeout` for the process to exit; true when it has.
    @discardableResult
    func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Blocking variant for synchronous teardown (polls; the process is expected to exit at once).
    @discardableResult
    func waitForExitBlocking(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
