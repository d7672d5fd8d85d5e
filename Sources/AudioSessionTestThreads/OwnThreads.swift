import Foundation
import Testing

/// Runs each test of a suite on threads of its own instead of Swift concurrency's shared pool.
///
/// That pool has as many threads as the machine has cores, two on the project's machines. A test body that
/// computes for seconds (the random policy walks) or waits synchronously (a child process, a blocking socket,
/// a sound server stopping) holds one of them, and two such bodies stall every task of the test process: the
/// daemons that tests run in this process, the timers of every live test, the safety limits. Whole suites
/// waited 17 to 36 s at the start of a run that way, and tests failed their limits (docs/TESTING.md, "The
/// pool"). With this trait (`@Suite(.ownThreads)`, every suite of the project has it) a test's body and
/// everything it awaits run on threads made for them, so the pool is left to the in-process daemons and
/// to the tasks those tests start, as a daemon process has it to itself. A test that waits still waits; it
/// just holds no thread anyone else needs.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test on threads of its own (`OwnThreadsTrait`).
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// A task executor that runs each job it is given on a new thread: a test's code between two of its awaits.
/// Threads are cheap next to what a test does between awaits (starting servers, replaying scenarios); a pool
/// of its own would again be a fixed number of threads that blocking bodies could use up.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let thread = Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        // A main thread's usual 8 MiB, so that no test has less stack here than it would elsewhere.
        thread.stackSize = 8 << 20
        thread.start()
    }
}
