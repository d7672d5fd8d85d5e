internal import CSystemd
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One sd-bus connection and the thread that owns it.
///
/// sd-bus connections are not thread-safe: only the loop thread touches the `sd_bus`, its slots and its messages.
/// Other threads hand it jobs through `enqueue`, which appends to a queue and bumps an eventfd the thread polls
/// beside the bus descriptor. A job runs with the loop, or with nil once the loop has ended (the job then fails
/// its caller). Every stored var below the queue is touched only on the loop thread.
final class BusLoop: @unchecked Sendable {
    typealias Job = @Sendable (BusLoop?) -> Void

    private struct Queue {
        var jobs: [Job] = []
        /// False once the thread has finished with the bus: later jobs run at once, with nil.
        var accepting = true
        var stopRequested = false
        var thread: pthread_t?
        var joined = false
    }

    private let queue = Locked(Queue())
    /// The eventfd that wakes the thread; written only with `queue` locked, closed by the thread with it locked.
    private let wakeDescriptor: Int32
    let bus: OpaquePointer

    // Loop-thread state.
    var pendingCalls: [ObjectIdentifier: PendingCall] = [:]
    var subscriptions: [ObjectIdentifier: Subscription] = [:]
    var servedObjects: [ObjectIdentifier: ServedObject] = [:]
    /// Set when the bus connection has gone: calls fail with `connectionLost`, streams have ended.
    private(set) var lost = false
    /// Unique name → uid of callers of served objects (unique names are never reused on a bus).
    var callerUIDs: [String: UInt32] = [:]

    /// Takes ownership of a started `sd_bus` and starts the thread.
    init(bus: OpaquePointer) throws(DBusError) {
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else {
            sd_bus_flush_close_unref(bus)
            throw .system(operation: "eventfd", errno: -errno)
        }
        self.bus = bus
        self.wakeDescriptor = descriptor
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread,
            nil,
            { argument in
                let loop = Unmanaged<BusLoop>.fromOpaque(argument!).takeRetainedValue()
                loop.run()
                return nil
            },
            retained
        )
        guard created == 0 else {
            Unmanaged<BusLoop>.fromOpaque(retained).release()
            close(descriptor)
            sd_bus_flush_close_unref(bus)
            throw .system(operation: "pthread_create", errno: -created)
        }
        queue.withLock { $0.thread = thread }
    }

    /// Runs `job` on the loop thread, or at once with nil if the loop has ended.
    func enqueue(_ job: @escaping Job) {
        let accepted = queue.withLock { queue in
            guard queue.accepting else { return false }
            queue.jobs.append(job)
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
            return true
        }
        if !accepted { job(nil) }
    }

    /// Asks the thread to finish and waits for it (unless called on the thread itself, which cannot wait for
    /// itself: it then only asks). Idempotent.
    func stop() {
        let thread: pthread_t? = queue.withLock { queue in
            queue.stopRequested = true
            if queue.accepting {
                var one: UInt64 = 1
                _ = write(wakeDescriptor, &one, 8)
            }
            guard let thread = queue.thread, !queue.joined, pthread_equal(thread, pthread_self()) == 0 else {
                return nil
            }
            queue.joined = true
            return thread
        }
        if let thread { pthread_join(thread, nil) }
    }

    var isOnLoopThread: Bool {
        queue.withLock { queue in queue.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: The thread

    private func run() {
        while true {
            let (jobs, stopRequested) = queue.withLock { queue in
                defer { queue.jobs = [] }
                return (queue.jobs, queue.stopRequested)
            }
            if stopRequested {
                // Taken off the queue with the stop: they still fail their callers, or those would wait forever.
                for job in jobs { job(nil) }
                break
            }
            for job in jobs { job(self) }
            if !lost { processAll() }
            waitForActivity()
        }
        shutDown()
        // A thread nobody will join (the connection let go of on this very thread) frees itself.
        let detach: Bool = queue.withLock { queue in
            guard !queue.joined else { return false }
            queue.joined = true
            return true
        }
        if detach { pthread_detach(pthread_self()) }
    }

    /// Dispatches everything sd-bus has ready: replies, signals, method calls, timeouts.
    private func processAll() {
        while true {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 || sd_bus_is_open(bus) <= 0 { return connectionLost() }
            if processed == 0 { return }
        }
    }

    private func waitForActivity() {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        var timeout: Int32 = -1
        if !lost {
            descriptors.append(pollfd(fd: sd_bus_get_fd(bus), events: Int16(sd_bus_get_events(bus)), revents: 0))
            var deadline: UInt64 = 0
            if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
                let now = Self.monotonicMicroseconds()
                timeout = deadline <= now ? 0 : Int32(clamping: (deadline - now + 999) / 1000)
            }
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if descriptors[0].revents & Int16(POLLIN) != 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, 8)
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// The bus went away: pending calls fail, subscription streams end. The `sd_bus` stays until `shutDown`.
    private func connectionLost() {
        guard !lost else { return }
        lost = true
        failEverything(with: { .connectionLost(operation: $0) })
    }

    private func failEverything(with error: (String) -> DBusError) {
        let calls = pendingCalls.values
        for call in calls { call.fail(error(call.operation)) }
        let streams = subscriptions.values
        for subscription in streams { subscription.end(error("AddMatch \(subscription.rule)")) }
    }

    /// On the thread, once: fails what is pending, closes the bus, runs the jobs still queued with nil, and only
    /// then refuses new jobs and closes the eventfd, so no job ever meets a half-freed loop.
    private func shutDown() {
        failEverything(with: { .closed(operation: $0) })
        for subscription in subscriptions.values { subscription.dropSlot() }
        for object in servedObjects.values { object.dropSlot() }
        sd_bus_flush_close_unref(bus)
        // The slots were owned by the bus; their boxes may go now that no callback can come.
        pendingCalls = [:]
        subscriptions = [:]
        servedObjects = [:]
        while true {
            let jobs: [Job] = queue.withLock { queue in
                if queue.jobs.isEmpty {
                    queue.accepting = false
                    close(wakeDescriptor)
                    return []
                }
                defer { queue.jobs = [] }
                return queue.jobs
            }
            if jobs.isEmpty { break }
            for job in jobs { job(nil) }
        }
    }
}

/// An sd-bus message this layer took a reference on.
final class HeldMessage: @unchecked Sendable {
    private var message: OpaquePointer?

    init(_ message: OpaquePointer) {
        self.message = sd_bus_message_ref(message)
    }

    /// The message, until `release()`.
    var pointer: OpaquePointer? { message }

    /// Frees the message; on the loop thread.
    func release() {
        if let message { sd_bus_message_unref(message) }
        message = nil
    }

    /// Frees the message after its loop has ended: the message still holds the closed bus, whose count other
    /// late releases may touch at the same time, so these take a lock of their own.
    func releaseLate() {
        Self.lateRelease.withLock { _ in release() }
    }

    private static let lateRelease = Locked(())
}
