import Glibc
import Locking
import PulseBackend
import Testing

/// `PulseLoopExecutor.startTimer`: timers on the connection's libpulse thread, started and cancelled there
/// without a lock or a wake-up, and from other threads without waiting for the loop; none outlives the loop.
@Suite("Timers on the connection's thread", .timeLimit(.minutes(2)))
struct PulseLoopTimerTests {
    /// What the timers of a test did, in the order they did it.
    final class Fired: Sendable {
        private let names = Locked<[String]>([])
        private let threads = Locked<Set<UInt>>([])

        func note(_ name: String) {
            names.withLock { $0.append(name) }
            _ = threads.withLock { $0.insert(UInt(pthread_self())) }
        }
        var all: [String] { names.withLock { $0 } }
        var onThreads: Set<UInt> { threads.withLock { $0 } }
    }

    /// Timers fire in the order they are due, on libpulse's thread; one cancelled there does not fire; a timer's
    /// `fire` starts and cancels others (it runs as the executor's jobs do, so it takes no lock it holds). Those
    /// whose order counts are due at least a second apart: a loaded machine may run a loop turn late.
    @Test func timersFireInOrderOnLibpulsesThreadAndACancelledOneDoesNot() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let executor = connection.executor
            let fired = Fired()
            let started = ContinuousClock.now
            let lastFiredAfter = Locked<Duration?>(nil)
            // Started and cancelled on the loop, as the daemon does with what a server event starts and ends.
            let loopThread = try await withTaskExecutorPreference(executor) {
                _ = try await connection.serverInfo()
                let late = executor.startTimer(after: .milliseconds(1200)) { fired.note("late") }
                _ = executor.startTimer(after: .milliseconds(100)) {
                    fired.note("first")
                    // From a timer's own fire: one that starts another, one that cancels another.
                    _ = executor.startTimer(after: .zero) { fired.note("started by first") }
                    if let late { executor.cancelTimer(late) }
                }
                let cancelled = executor.startTimer(after: .milliseconds(50)) { fired.note("cancelled") }
                if let cancelled { executor.cancelTimer(cancelled) }
                _ = executor.startTimer(after: .milliseconds(2400)) {
                    lastFiredAfter.withLock { $0 = ContinuousClock.now - started }
                    fired.note("last")
                }
                return UInt(pthread_self())
            }
            try await eventually("the last timer fired") { fired.all.last == "last" }
            #expect(fired.all == ["first", "started by first", "last"], "the late and the cancelled ones did not")
            #expect(fired.onThreads == [loopThread])
            // Not early: the deadline is on the monotonic clock the mainloop reads it on.
            let after = try #require(lastFiredAfter.withLock { $0 })
            #expect(after >= .milliseconds(2400), "the last timer fired after \(after)")
        }
    }

    /// A cancel from another thread reaches the loop without waiting for it; a timer pending when the connection
    /// closes never fires, and none starts before `connect()` or after `close()`.
    @Test func aCancelFromAnotherThreadHoldsAndNoTimerOutlivesItsConnection() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            let executor = connection.executor
            let fired = Fired()
            let started = executor.startTimer(after: .seconds(2)) { fired.note("cancelled") }
            let cancelled = try #require(started)
            startThread(named: "canceller") { executor.cancelTimer(cancelled) }
            _ = executor.startTimer(after: .milliseconds(2100)) { fired.note("after it") }
            try await eventually("the timer due after the cancelled one fired") { fired.all == ["after it"] }

            let pending = executor.startTimer(after: .seconds(1)) { fired.note("pending at close") }
            #expect(pending != nil)
            connection.close()
            let afterClose = executor.startTimer(after: .zero) { fired.note("after close") }
            #expect(afterClose == nil)
            // Well past its time: the pending one went with the loop.
            try await Task.sleep(for: .milliseconds(2200))
            #expect(fired.all == ["after it"])
            let neverConnected = PulseConnection(server: server.server, applicationName: "never")
            let beforeConnect = neverConnected.executor.startTimer(after: .zero) {}
            #expect(beforeConnect == nil)
        }
    }
}
