#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock: `withLock` runs its body with the value while no other thread can reach it.
///
/// The project's one lock, instead of the standard library's `Synchronization.Mutex`. On Linux that Mutex hands a
/// contended lock over through the kernel (a priority-inheriting futex) inside the uninstrumented
/// libswiftSynchronization, so ThreadSanitizer never sees the hand-over and reports every contended `withLock`
/// body as a race with the previous holder's (`make tsan` found seven such reports in the control socket and the
/// D-Bus loop, none a real race). A pthread mutex is what ThreadSanitizer understands, so with this lock a race
/// it reports is a real one (docs/TESTING.md, "Sanitizers"). The API is Mutex's: `Locked(value)`, `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held; not reentrant (a nested `withLock` on the same lock deadlocks,
    /// as Mutex's would).
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E)
        -> sending Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
