import Foundation
import Synchronization

/// What a pump's thread is asked to do, set by the transport and read by the thread between periods. Every
/// ALSA call is made on the pump's own thread: a PCM is not safe to drive from two threads at once.
struct PumpOrders: Sendable {
    var running = false
    /// `stop()`s waiting, taken by the thread: go back to the start (player) or finish the file (recorder),
    /// close the device, then tell each of them.
    var stopRequests = 0
    var closing = false
    /// A new gain to glide to, and over how long; taken by the thread.
    var fade: (gain: Double, milliseconds: Int)?
    /// Frames played or recorded from the start, as far as the device has got.
    var position = 0
}

/// The shared part of both pumps: the orders, and a thread that sleeps while there is nothing to do.
final class PumpControl: Sendable {
    let orders = Mutex(PumpOrders())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Tells the thread to stop and waits until it has: the device is closed when this returns (or after two
    /// seconds, should the device hang).
    func stopAndWait() {
        update {
            $0.running = false
            $0.stopRequests += 1
        }
        _ = stopped.wait(timeout: .now() + .seconds(2))
    }

    /// Called by the thread once it has carried out `count` stops.
    func stopsDone(_ count: Int) {
        for _ in 0..<count { stopped.signal() }
    }

    /// Tells the thread to let go of everything and waits until it has: when `close()` returns, the device is
    /// closed (its stream gone from the sound server) and the file finished.
    func closeAndWait() {
        let first = orders.withLock { orders in
            defer { orders.closing = true }
            return !orders.closing
        }
        wakeUp.signal()
        if first { ended.wait() }
    }

    /// Called by the thread as it ends.
    func threadEnded() { ended.signal() }

    func update(_ change: (inout PumpOrders) -> Void) {
        orders.withLock { orders in
            var copy = orders
            change(&copy)
            orders = copy
        }
        wakeUp.signal()
    }

    /// Sleeps until woken or a short while has passed (the thread looks at its orders again either way).
    func sleep() { _ = wakeUp.wait(timeout: .now() + .milliseconds(50)) }

    static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
