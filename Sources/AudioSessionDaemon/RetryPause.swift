import Foundation
import Synchronization

/// How the ALSA services wait before trying a missing card again: a second, cut short as soon as the daemon
/// stops, so that shutting down never waits for it.
protocol RetryingService: AnyObject {
    var stopping: Atomic<Bool> { get }
}

extension RetryingService {
    func pauseBeforeRetrying() {
        for _ in 0..<20 where !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
