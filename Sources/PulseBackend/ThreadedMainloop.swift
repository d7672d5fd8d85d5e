internal import CPulse
import Locking

/// One `pa_threaded_mainloop` and its thread, which also runs the jobs of its `PulseLoopExecutor`.
///
/// The `Locked` is the gate that keeps the pointer valid: `withLock` takes it, then the mainloop's own lock, so
/// `shutDown()` cannot free the mainloop under a caller. libpulse callbacks already run on the mainloop thread with
/// its lock held; they must never call `withLock` (the gate is not recursive, and `shutDown()` waits for that thread).
/// The executor's jobs run there too, with the lock held, and do call `withLock`: for them it passes the gate (the
/// mainloop cannot be freed while its own thread runs a job), so that a job never waits for a thread that waits
/// for the mainloop lock.
final class ThreadedMainloop: Sendable {
    private let gate: Locked<OpaquePointer?>
    private let executor: PulseLoopExecutor
    /// The mainloop's API, for the executor's jobs, which run on its thread with its lock held.
    private nonisolated(unsafe) let api: UnsafeMutablePointer<pa_mainloop_api>

    /// Creates and starts the mainloop thread, which runs `executor`'s jobs from then on.
    init(executor: PulseLoopExecutor) throws(PulseError) {
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw PulseError(
                code: .init(rawValue: Int32(PA_ERR_INTERNAL.rawValue)),
                operation: "pa_threaded_mainloop_new"
            )
        }
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_threaded_mainloop_free(mainloop)
            throw PulseError(
                code: .init(rawValue: Int32(PA_ERR_INTERNAL.rawValue)),
                operation: "pa_threaded_mainloop_start"
            )
        }
        api = pa_threaded_mainloop_get_api(mainloop)
        gate = Locked(mainloop)
        self.executor = executor
        do {
            try withLock("attach") { api throws(PulseError) in try executor.attach(to: api) }
        } catch {
            shutDown()
            throw error
        }
    }

    /// Runs `body` with the mainloop locked, passing the mainloop's `pa_mainloop_api`.
    /// Throws a closed error once `shutDown()` has run. `body` must not block.
    func withLock<Result: Sendable>(
        _ operation: String,
        _ body: (_ api: UnsafeMutablePointer<pa_mainloop_api>) throws(PulseError) -> Result
    ) throws(PulseError) -> Result {
        if executor.isDrainingHere { return try body(api) }
        let outcome: Swift.Result<Result, PulseError> = gate.withLock { mainloop in
            guard let mainloop else { return .failure(.closed(operation)) }
            pa_threaded_mainloop_lock(mainloop)
            defer { pa_threaded_mainloop_unlock(mainloop) }
            do throws(PulseError) {
                return .success(try body(pa_threaded_mainloop_get_api(mainloop)))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Stops the thread and frees the mainloop; later `withLock` calls throw. Idempotent.
    /// On the mainloop thread itself (a libpulse callback, or a job of the executor's: a task on it must leave
    /// it before it closes its connection) it does nothing rather than deadlock.
    func shutDown() {
        gate.withLock { mainloop in
            guard let current = mainloop, pa_threaded_mainloop_in_thread(current) == 0 else { return }
            pa_threaded_mainloop_lock(current)
            executor.detach(from: api)
            pa_threaded_mainloop_unlock(current)
            pa_threaded_mainloop_stop(current)
            pa_threaded_mainloop_free(current)
            mainloop = nil
        }
    }

    deinit {
        shutDown()
    }
}
