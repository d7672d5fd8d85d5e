import Locking
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The ALSA services: each drives libasound from a thread of its own, which watches `stopping`.
protocol AlsaThreadService: AnyObject, Sendable {
    var stopping: Atomic<Bool> { get }
}

extension AlsaThreadService {
    /// Runs `serve` on a thread of its own until it returns. A graceful shutdown, or the task being cancelled,
    /// sets `stopping`; this returns once `serve` has finished (the mixer gives back before that).
    func runOnThread(named name: String, _ serve: @escaping @Sendable () -> Void) async {
        let (finished, done) = AsyncStream<Void>.makeStream()
        startThread(named: name) {
            serve()
            done.finish()
        }
        await withGracefulShutdownHandler {
            for await _ in finished {}
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
        }
        stopping.store(true, ordering: .relaxed)
        for await _ in finished {}
    }

    /// How a service waits before trying a missing card again: a second, cut short as soon as the daemon
    /// stops, so that shutting down never waits for it.
    func pauseBeforeRetrying() {
        for _ in 0..<20 where !stopping.load(ordering: .relaxed) {
            usleep(50_000)
        }
    }
}
