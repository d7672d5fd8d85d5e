import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Catches signals while a command waits, so that it can end cleanly (`watch`) or pass them on to its child
/// (`run`). The handler only stores a number and calls `kill`, both safe in a signal handler.
enum SignalTrap {
    private static let lastSignal = Atomic<Int32>(0)
    private static let child = Atomic<Int32>(0)

    /// The last SIGINT or SIGTERM caught, 0 for none.
    static var received: Int32 { lastSignal.load(ordering: .relaxed) }

    /// Where caught SIGINT and SIGTERM go on to; 0 for nowhere.
    static func forward(to pid: Int32) { child.store(pid, ordering: .relaxed) }

    /// Runs `body` with `signals` caught (a caught signal also cuts a `poll` short), then puts back what was
    /// there before. The signals are unblocked on the calling thread meanwhile: a process started with them
    /// blocked (some runners and test harnesses hand their mask on) would otherwise never see them.
    static func catching<Result>(_ signals: [Int32], _ body: () throws -> Result) rethrows -> Result {
        lastSignal.store(0, ordering: .relaxed)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in signals { sigaddset(&unblocked, number) }
        var previousMask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &unblocked, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        var previous: [(Int32, sigaction)] = []
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = caught
            action.sa_flags = SA_SIGINFO
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(number, &action, &old)
            previous.append((number, old))
        }
        defer {
            for (number, old) in previous {
                var old = old
                sigaction(number, &old, nil)
            }
            child.store(0, ordering: .relaxed)
        }
        return try body()
    }

    fileprivate static func handle(_ number: Int32, sentByProcess: Bool) {
        guard number != SIGCHLD else { return }
        lastSignal.store(number, ordering: .relaxed)
        // A signal from the terminal (Ctrl-C) already reached the child, which is in the same process group:
        // only one sent by a process (`kill`) is passed on, so the child never gets it twice.
        let pid = child.load(ordering: .relaxed)
        if pid > 0 && sentByProcess { kill(pid, number) }
    }
}

private func caught(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _: UnsafeMutableRawPointer?) {
    SignalTrap.handle(number, sentByProcess: (info?.pointee.si_code ?? 0) <= 0)
}
