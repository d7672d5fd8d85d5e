import Locking

/// Where the loop thread leaves the outcome of a call for the task that awaits it, and wakes that task.
///
/// The task makes it before it hands the call to the loop thread (through the loop's locked queue), the loop
/// thread puts the outcome in under its lock and then resumes the task, and the task takes the outcome out under
/// the same lock. Resuming a continuation already orders the two threads, but ThreadSanitizer does not see that
/// order: `make tsan` reported the loop thread's `DBusValue`s (and, passed through the continuation, any object
/// made for them) as read by the task without it. A lock both sides take is an order it sees, so its reports
/// stay real ones (docs/TESTING.md, "Sanitizers").
final class Reply<Value: Sendable>: Sendable {
    private let outcome = Locked<Result<Value, DBusError>?>(nil)

    init() {}

    /// Runs `send` with a `Waiter`, waits until the loop thread has finished it, and returns its outcome.
    static func outcome(_ send: (Waiter) -> Void) async -> Result<Value, DBusError> {
        let reply = Reply()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            send(Waiter(reply: reply, continuation: continuation))
        }
        return reply.outcome.withLock { $0! }
    }

    /// The loop thread's end of it: finished exactly once.
    struct Waiter: Sendable {
        fileprivate let reply: Reply
        fileprivate let continuation: CheckedContinuation<Void, Never>

        func finish(_ outcome: Result<Value, DBusError>) {
            reply.outcome.withLock { $0 = outcome }
            continuation.resume()
        }
    }
}
