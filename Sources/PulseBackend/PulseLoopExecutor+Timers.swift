internal import CPulse
import Synchronization

/// A timer on a connection's libpulse thread (`PulseLoopExecutor.startTimer`).
public struct PulseLoopTimer: Hashable, Sendable {
    let number: UInt64
}

// MARK: Timers on the loop

extension PulseLoopExecutor {
    /// Calls `fire` on libpulse's thread once `delay` has passed, unless the timer is cancelled first; nil when no
    /// loop runs (before the connection is made, after it is closed): the caller needs a timer of its own then.
    ///
    /// A consumer whose events come on this loop and start and end timers (a grace period that a stream's end
    /// starts and its return cancels) then has them on the thread already awake for the events: a timer of the
    /// global executor costs a task, a wake-up of libdispatch's timer thread to arm it and one of a worker to run
    /// it. `fire` runs as the executor's jobs do (the mainloop lock held, the connection's calls allowed). A timer
    /// goes with its loop: one still pending when the connection closes never fires.
    public func startTimer(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> PulseLoopTimer? {
        let timer = PulseLoopTimer(number: timerNumbers.add(1, ordering: .relaxed).newValue)
        let (seconds, attoseconds) = max(delay, .zero).components
        let deadline = pa_rtclock_now() + pa_usec_t(seconds) * 1_000_000 + pa_usec_t(attoseconds / 1_000_000_000_000)
        let armed = onLoop { [self] api in arm(timer, at: deadline, fire, api) }
        return armed ? timer : nil
    }

    /// Cancels `timer`: called on the loop (from its jobs, or a timer's `fire`), it will not fire; from another
    /// thread the cancel waits for the loop to take it, and a fire already due may come first.
    public func cancelTimer(_ timer: PulseLoopTimer) {
        _ = onLoop { [self] api in
            if let event = armedTimers.removeValue(forKey: timer) { api.pointee.time_free(event) }
        }
    }

    /// The mainloop lock held.
    private func arm(
        _ timer: PulseLoopTimer,
        at deadline: pa_usec_t,
        _ fire: @escaping @Sendable () -> Void,
        _ api: UnsafeMutablePointer<pa_mainloop_api>
    ) {
        // The context's timers are on the monotonic clock: a change of the wall clock neither brings one forward
        // nor holds it back. Without a context (it is being closed) the timer goes with the loop.
        guard let context = timerContext else { return }
        let box = Unmanaged.passRetained(ArmedTimer(executor: self, timer: timer, fire: fire))
        guard let event = pa_context_rttime_new(context, deadline, Self.timerThunk, box.toOpaque()) else {
            box.release()
            return
        }
        api.pointee.time_set_destroy(event, Self.timerDestroyThunk)
        armedTimers[timer] = event
    }

    private static let timerThunk: pa_time_event_cb_t = { api, event, _, userdata in
        let armed = Unmanaged<ArmedTimer>.fromOpaque(userdata!).takeUnretainedValue()
        let executor = armed.executor
        executor.armedTimers[armed.timer] = nil
        // Freeing the event releases `armed` (its destroy callback): what is used after is taken first.
        let fire = armed.fire
        api!.pointee.time_free(event)
        executor.runAsJob(fire)
    }

    private static let timerDestroyThunk: pa_time_event_destroy_cb_t = { _, _, userdata in
        Unmanaged<ArmedTimer>.fromOpaque(userdata!).release()
    }
}

/// What an armed timer's event carries, retained until libpulse frees the event.
private final class ArmedTimer {
    let executor: PulseLoopExecutor
    let timer: PulseLoopTimer
    let fire: @Sendable () -> Void

    init(executor: PulseLoopExecutor, timer: PulseLoopTimer, fire: @escaping @Sendable () -> Void) {
        self.executor = executor
        self.timer = timer
        self.fire = fire
    }
}
