import Locking

/// A value made on the loop thread for a task that awaits it, passed through a lock.
///
/// The continuation that wakes the task already orders the two threads, but ThreadSanitizer does not always see
/// that order (when the reply comes before the task has finished suspending, the runtime's quick path tells it
/// nothing): `make tsan` reported reading a reply's `DBusValue`s after the loop thread had made them, once in
/// three runs. Taking the value under the lock the loop thread put it under is an order it sees, so its reports
/// stay real ones (docs/TESTING.md, "Sanitizers").
final class Handoff<Value: Sendable>: Sendable {
    private let box = Locked<Value?>(nil)

    init(_ value: Value) { box.withLock { $0 = value } }

    /// The value, read under the lock it was put under.
    var value: Value { box.withLock { $0! } }
}
