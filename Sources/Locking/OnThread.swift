import Foundation

/// Runs blocking work (a device write, a blocking socket call, a `Thread.sleep`) on a thread of its own and
/// waits for it without holding a thread of Swift concurrency's pool. That pool has as many threads as the
/// machine has cores (two on the project's machines): blocking code holding them starves every task of the
/// process, an in-process daemon's included, which then cannot answer the very call that blocks (a deadlock
/// until a read times out). Blocking calls of the project's own are marked `noasync`, so the compiler sends them
/// here (docs/TESTING.md, "The pool").
public func onThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
    }
}
