import Locking
import Foundation

/// Running the sound-server script, `pactl` and test clients: executables are found on PATH and get their
/// arguments as an array, never through a shell command line.
public enum ChildProcess {
    /// What a finished program left: its exit status and what it printed.
    public struct Output: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// The executable `name` on PATH (or `name` itself if it is a path), if there is one.
    public static func executable(named name: String) -> URL? {
        if name.contains("/") {
            return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate)
            }
        }
        return nil
    }

    /// An empty file at `path`, open for writing.
    public static func newFile(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw SoundServerError(code: .commandFailed, message: "cannot create \(path)")
        }
        return handle
    }

    /// Starts `process` with no signal blocked, one start at a time in the whole test process.
    ///
    /// Foundation's posix_spawn passes on the signal mask of the calling thread, and Dispatch and Swift
    /// concurrency threads block nearly every signal: a child started from one would ignore `terminate()`. For
    /// the few instructions of the spawn, this thread takes signals sent to the whole process, which then act as
    /// they would on any other unblocked thread.
    ///
    /// One at a time: Foundation learns that a child has exited when its end of a socket pair closes, and that
    /// end is open in this process, without close-on-exec, until the spawn returns. A child another thread
    /// starts meanwhile inherits it and keeps it open for as long as it lives: a `pactl` then "did not finish"
    /// for as long as a sound server started beside it ran (every run, while tests ran on threads of their own;
    /// docs/TESTING.md). Every test starts its children here (`ChildProcess.run`, `PrivateSoundServer.spawn`,
    /// and the tests' own `launch` calls).
    public static func launch(_ process: Process) throws {
        try Spawning.oneAtATime { try startUnblocked(process) }
    }

    /// Runs `spawn` (a test's own `posix_spawn`) one at a time with `launch`, for the same reason: a child it
    /// starts while Foundation starts another would inherit that one's exit-watch socket and hide its exit.
    public static func launching<Result>(_ spawn: () throws -> Result) rethrows -> Result {
        try Spawning.oneAtATime(spawn)
    }

    private static func startUnblocked(_ process: Process) throws {
        var unblocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&unblocked)
        pthread_sigmask(SIG_SETMASK, &unblocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// This process's environment with `overrides` applied.
    public static func environment(_ overrides: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(overrides) { _, override in override }
    }

    /// `run` for async code, on a thread of its own: waiting for a child on one of the cooperative pool's
    /// threads (as many as cores) stalls every other task of the test process (docs/TESTING.md, "Waiting").
    /// In an async context this overload is the one chosen.
    public static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String],
        timeout: Duration
    ) async throws -> Output {
        try await onThread {
            try run(executable, arguments, environment: environment, timeout: timeout) as Output
        }
    }

    /// Runs `executable` to completion and collects its output. The output goes through files rather than
    /// pipes, so that a grandchild that keeps running (a sound server the script started) cannot hold the
    /// reading end open. A run longer than `timeout` is killed and reported as `.timedOut`.
    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    public static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String],
        timeout: Duration
    ) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiosessiond-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        let outputHandle = try newFile(outputURL.path)
        let errorHandle = try newFile(errorURL.path)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try launch(process)
        } catch {
            try? outputHandle.close()
            try? errorHandle.close()
            throw SoundServerError(
                code: .commandFailed,
                message: "cannot run \(executable.path): \(error)"
            )
        }
        try? outputHandle.close()
        try? errorHandle.close()

        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        if exited.wait(timeout: .now() + timeout.timeInterval) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 2) == .timedOut {
                Foundation.kill(process.processIdentifier, SIGKILL)
                // Foundation learns of the exit when a socket it gave the child closes; if a grandchild
                // inherited it, that never happens, so do not wait for it forever.
                _ = exited.wait(timeout: .now() + 2)
            }
            throw SoundServerError(
                code: .timedOut,
                message: "`\(command)` did not finish within \(timeout)",
                context: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            )
        }
        return Output(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        )
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension ChildProcess {
    /// Why a child a test waited for has not ended, read from /proc: gone (it exited, but Foundation was not
    /// told: something else holds its exit-watch socket), a zombie not yet reaped, or alive, with what each of
    /// its threads is blocked in (state, kernel wait channel, system call number). For a timeout's message.
    public static func whyStillRunning(_ pid: Int32) -> String {
        let directory = "/proc/\(pid)"
        guard let stat = try? String(contentsOfFile: "\(directory)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else {
            return "pid \(pid) is gone from /proc: it exited, and Foundation was not told of it"
        }
        let state = stat[stat.index(after: close)...].split(separator: " ").first.map(String.init) ?? "?"
        if state == "Z" { return "pid \(pid) is a zombie: it exited and was not reaped yet" }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/task")) ?? []
        let described = threads.sorted().map { thread -> String in
            func read(_ name: String) -> String {
                ((try? String(contentsOfFile: "\(directory)/task/\(thread)/\(name)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let call = read("syscall").split(separator: " ").first.map(String.init) ?? "?"
            return "\(read("comm")) [\(thread)] wchan \(read("wchan")) syscall \(call)"
        }
        return "pid \(pid) is alive (state \(state)); its threads: " + described.joined(separator: "; ")
    }
}
