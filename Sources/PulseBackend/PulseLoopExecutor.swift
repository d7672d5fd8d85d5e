internal import CPulse
internal import CPulseLoop
import Glibc
import Locking
import Synchronization

/// Runs a task's code on its connection's libpulse thread: `withTaskExecutorPreference(connection.executor) {...}`.
///
/// A consumer that answers the server's events with requests (and reads their answers) then does it all on the
/// thread that reads them, as a single-threaded libpulse client does: an event, a query's answer or a request's
/// completion resumes the task on the same thread, where a task on the global executor costs a wake-up of one
/// of its threads each time and a wake-up of libpulse's thread for each request. Jobs run with the mainloop lock
/// held, between libpulse's own callbacks, so they must not block on anything that waits for libpulse's thread.
///
/// Jobs enqueued from other threads wake the loop through an eventfd, never through the mainloop lock: the
/// enqueuing thread does not wait for the job or callback that is running. Jobs enqueued on the loop's own thread
/// (a libpulse callback resuming a task) enable a deferred event instead, which runs them before the loop polls
/// again: no descriptor written or read, and no wake-up of libpulse's either (CPulseLoop). Before the connection
/// is made and after it is closed, jobs run on the global executor.
public final class PulseLoopExecutor: TaskExecutor, @unchecked Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// Work on the mainloop itself (a timer armed or disarmed) asked for from another thread.
        var loopWork: [@Sendable (UnsafeMutablePointer<pa_mainloop_api>) -> Void] = []
        /// The eventfd that wakes the loop; nil while no mainloop runs the jobs.
        var wakeup: Int32?
        /// The loop was woken (or is draining) and will find jobs added meanwhile without another wake-up.
        var woken = false
    }

    private let queue = Locked(Queue())
    /// The io event that drains `queue`; only touched with the mainloop lock held.
    private nonisolated(unsafe) var drainEvent: OpaquePointer?
    /// The deferred event that drains `queue` after jobs enqueued on the loop's thread; only touched with the
    /// mainloop lock held.
    private nonisolated(unsafe) var drainDeferred: OpaquePointer?
    /// `drain` is running, and takes the jobs enqueued meanwhile before it returns; only touched on the loop's
    /// thread (a callback run `runAsJob` is not in it).
    private nonisolated(unsafe) var inDrain = false
    /// The mainloop's API while attached; only touched with the mainloop lock held.
    private nonisolated(unsafe) var api: UnsafeMutablePointer<pa_mainloop_api>?
    /// The timers armed on the mainloop (`startTimer`); only touched with the mainloop lock held.
    nonisolated(unsafe) var armedTimers: [PulseLoopTimer: OpaquePointer] = [:]
    /// The context whose clock the timers run on, while it is open; only touched with the mainloop lock held.
    nonisolated(unsafe) var timerContext: OpaquePointer?
    /// The number of the last timer started (`startTimer`), from any thread.
    let timerNumbers = Atomic<UInt64>(0)

    init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isLoopThread, let api, let drainDeferred {
            // In one of libpulse's callbacks (or a job), the mainloop lock held: it dispatches now, and takes
            // the deferred event before it polls again. A job's job is taken by the drain running it.
            queue.withLock { $0.jobs.append(job) }
            if !inDrain { api.pointee.defer_enable(drainDeferred, 1) }
            return
        }
        if !queueAndWake({ $0.jobs.append(job) }) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// How many of libpulse's wake-ups of its mainloop were left out on the calling thread (CPulseLoop): a test's
    /// view, on the loop's thread, that libpulse's calls reach the executable's `pa_mainloop_wakeup`.
    package static var wakeupsLeftOutOnThisThread: UInt { UInt(asd_mainloop_wakeups_left_out()) }

    /// Whether the calling thread is the one that runs this executor's mainloop (marked by its first drain).
    private var isLoopThread: Bool {
        pthread_getspecific(Self.loopThreadKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Adds to the queue (`add`) and wakes the loop unless it is woken already; false, with nothing added, when
    /// no loop runs.
    private func queueAndWake(_ add: (inout Queue) -> Void) -> Bool {
        queue.withLock { queue in
            guard let wakeup = queue.wakeup else { return false }
            add(&queue)
            if !queue.woken {
                queue.woken = true
                // Under the lock: `detach` closes the descriptor under it, and its number may be reused at once.
                _ = eventfd_write(wakeup, 1)
            }
            return true
        }
    }

    /// Whether the calling thread is running this executor's jobs (libpulse's thread, the mainloop lock held).
    var isDrainingHere: Bool {
        pthread_getspecific(Self.drainingKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `work` on the mainloop: at once when called from its jobs, else as soon as the loop takes them,
    /// without waiting for it (a caller may hold a lock that a job running now waits for). False when no loop
    /// runs (before attach, after detach): `work` is dropped.
    func onLoop(_ work: @escaping @Sendable (UnsafeMutablePointer<pa_mainloop_api>) -> Void) -> Bool {
        if isDrainingHere, let api {
            work(api)
            return true
        }
        return queueAndWake { $0.loopWork.append(work) }
    }

    /// Runs `body` as the executor's jobs run (`isDrainingHere`), from a callback of the mainloop's own.
    func runAsJob(_ body: () -> Void) {
        let previous = pthread_getspecific(Self.drainingKey)
        pthread_setspecific(Self.drainingKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.drainingKey, previous) }
        body()
    }

    /// Starts running jobs on the mainloop behind `api`. The mainloop lock held.
    func attach(to api: UnsafeMutablePointer<pa_mainloop_api>) throws(PulseError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0,
            let event = api.pointee.io_new(
                api,
                descriptor,
                PA_IO_EVENT_INPUT,
                Self.drainThunk,
                Unmanaged.passUnretained(self).toOpaque()
            )
        else {
            if descriptor >= 0 { close(descriptor) }
            throw PulseError(code: .init(rawValue: Int32(PA_ERR_INTERNAL.rawValue)), operation: "eventfd")
        }
        guard let deferred = api.pointee.defer_new(api, Self.deferredDrainThunk, Unmanaged.passUnretained(self).toOpaque())
        else {
            api.pointee.io_free(event)
            close(descriptor)
            throw PulseError(code: .init(rawValue: Int32(PA_ERR_INTERNAL.rawValue)), operation: "defer_new")
        }
        api.pointee.defer_enable(deferred, 0)
        drainEvent = event
        drainDeferred = deferred
        self.api = api
        queue.withLock { queue in
            queue.wakeup = descriptor
            // Jobs enqueued before went to the global executor; none wait here. One drain at once all the same:
            // it marks the loop's thread as such (`isLoopThread`, CPulseLoop) before any callback runs there.
            queue.woken = true
            _ = eventfd_write(descriptor, 1)
        }
    }

    /// Stops running jobs on the mainloop behind `api`; the jobs still waiting go to the global executor. The
    /// mainloop lock held, its thread not in a job (the mainloop is about to stop).
    func detach(from api: UnsafeMutablePointer<pa_mainloop_api>) {
        if let drainEvent { api.pointee.io_free(drainEvent) }
        drainEvent = nil
        if let drainDeferred { api.pointee.defer_free(drainDeferred) }
        drainDeferred = nil
        // A timer goes with its loop: none fires after this.
        for event in armedTimers.values { api.pointee.time_free(event) }
        armedTimers = [:]
        self.api = nil
        let waiting = queue.withLock { queue in
            if let descriptor = queue.wakeup { close(descriptor) }
            queue.wakeup = nil
            queue.loopWork = []
            defer { queue.jobs = [] }
            return queue.jobs
        }
        for job in waiting { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    private static let drainThunk: pa_io_event_cb_t = { _, _, descriptor, _, userdata in
        Unmanaged<PulseLoopExecutor>.fromOpaque(userdata!).takeUnretainedValue().drain(descriptor)
    }

    private static let deferredDrainThunk: pa_defer_event_cb_t = { _, _, userdata in
        Unmanaged<PulseLoopExecutor>.fromOpaque(userdata!).takeUnretainedValue().drain(nil)
    }

    /// Runs the waiting jobs, and those they enqueue, in order, until none is left. On libpulse's thread, from
    /// the eventfd's io event (`descriptor`) or the deferred event (nil).
    private func drain(_ descriptor: Int32?) {
        if let descriptor {
            var count: eventfd_t = 0
            _ = eventfd_read(descriptor, &count)
        }
        if let api, let drainDeferred { api.pointee.defer_enable(drainDeferred, 0) }
        let marker = Unmanaged.passUnretained(self).toOpaque()
        if pthread_getspecific(Self.loopThreadKey) != marker, let api {
            pthread_setspecific(Self.loopThreadKey, marker)
            asd_mainloop_runs_on_this_thread(api)
        }
        pthread_setspecific(Self.drainingKey, marker)
        inDrain = true
        defer {
            pthread_setspecific(Self.drainingKey, nil)
            inDrain = false
        }
        while true {
            let (loopWork, jobs) = queue.withLock { queue in
                if queue.jobs.isEmpty && queue.loopWork.isEmpty { queue.woken = false }
                defer { (queue.loopWork, queue.jobs) = ([], []) }
                return (queue.loopWork, queue.jobs)
            }
            if jobs.isEmpty && loopWork.isEmpty { return }
            if let api { for work in loopWork { work(api) } }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// The thread-specific value that names the executor whose mainloop the thread runs.
    private static let loopThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The thread-specific value that names the executor whose jobs the thread is running.
    private static let drainingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
