import Foundation

/// Runs blocking work (a device write, a blocking socket call, a `Thread.sleep`) on a thread of its own and
/// waits for it without holding a thread of Swift concurrency's small pool: tests blocking that pool starve
/// every other test's timers, and the timing of the live tests with them.
public func onThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
    }
}
