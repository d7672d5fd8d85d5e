import Foundation

/// Waiting for a child's exit without `waitUntilExit()`, which spins the calling thread's run loop with no limit:
/// these waits end when Foundation's own monitor thread has seen the exit, or after a limit, and the limit is
/// only a safety net (seconds).
extension Process {
    /// Blocks until the process has exited; false if it still runs after `limit`.
    public func waitForExit(within limit: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Suspends until the process has exited; false if it still runs after `limit`.
    public func exited(within limit: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Ends the process: SIGTERM, SIGKILL if it is still there after `grace`, and returns once it is gone (or
    /// 5 s after the SIGKILL, which cannot be refused).
    public func stop(grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        terminate()
        if !waitForExit(within: grace) {
            kill(processIdentifier, SIGKILL)
            _ = waitForExit(within: .seconds(5))
        }
    }
}

/// `process.stop()` for async callers, suspending instead of blocking while it waits.
public func stopProcess(_ process: Process, grace: Duration = .seconds(5)) async {
    guard process.isRunning else { return }
    process.terminate()
    if await !process.exited(within: grace) {
        kill(process.processIdentifier, SIGKILL)
        _ = await process.exited(within: .seconds(5))
    }
}
