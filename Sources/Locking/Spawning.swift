/// Children started one at a time in this process.
///
/// Foundation's `Process` learns that a child has exited when the child's end of a socket pair closes, and that
/// end is open in this process, without close-on-exec, until the spawn returns. A child another thread starts
/// meanwhile (through Foundation or `posix_spawn`) inherits it and keeps it open for as long as it lives, so the
/// first child's exit goes unseen: a refused `audiosessiond` "did not finish within 30 s" beside a live replay's
/// player in a test run. A process that starts children both ways (the tests, which run the tool's `run` and its
/// live replays in-process) starts every one of them here.
public enum Spawning {
    /// How many children were started, behind the lock (a lock of an empty value made ThreadSanitizer report its
    /// own access as a race).
    private static let started = Locked(0)

    /// Runs `spawn` while no other thread of the process starts a child through here.
    public static func oneAtATime<Result>(_ spawn: () throws -> Result) rethrows -> Result {
        try started.withLock { count in
            defer { count += 1 }
            return try spawn()
        }
    }
}
