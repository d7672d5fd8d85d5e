import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Everything that must be undone however the benchmark ends: daemons to stop, sound servers to stop. Run at
/// the end, on an error, and on SIGINT, SIGTERM or SIGHUP (see `installSignalHandling`).
enum Cleanup {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var actions: [(id: Int, run: () -> Void)] = []
    nonisolated(unsafe) private static var nextID = 0

    /// Registers `action`; returns a token for `done(_:)` once it has been carried out normally.
    @discardableResult
    static func register(_ action: @escaping () -> Void) -> Int {
        lock.withLock {
            nextID += 1
            actions.append((nextID, action))
            return nextID
        }
    }

    static func done(_ token: Int) {
        lock.withLock { actions.removeAll { $0.id == token } }
    }

    /// Runs every registered action, newest first, once.
    static func runAll() {
        let pending = lock.withLock {
            defer { actions.removeAll() }
            return actions
        }
        for action in pending.reversed() { action.run() }
    }

    /// Takes SIGINT, SIGTERM and SIGHUP: a handler (for whichever thread the signal lands on) writes the signal's
    /// number to a pipe, and a thread of its own reads it, runs the cleanup and exits. Call first thing.
    static func installSignalHandling() {
        // A daemon that closes a connection makes a write fail with EPIPE (reported) rather than kill us.
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        signalPipe = fds[1]
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(Cleanup.signalPipe, &byte, 1)
            }
        }
        let reading = fds[0]
        Thread {
            var byte: UInt8 = 0
            while read(reading, &byte, 1) != 1 {}
            FileHandle.standardError.write(Data("[bench] signal \(byte): cleaning up\n".utf8))
            runAll()
            exit(128 + Int32(byte))
        }.start()
    }

    nonisolated(unsafe) static var signalPipe: Int32 = -1
}

/// Stops `process` with SIGTERM (the daemon then gives streams their values back), SIGKILL after `grace`.
func stop(_ process: Process, grace: Duration = .seconds(5)) {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = ContinuousClock.now + grace
    while process.isRunning && ContinuousClock.now < deadline { usleep(2000) }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { usleep(2000) }
    }
}
