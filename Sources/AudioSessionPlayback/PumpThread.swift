import AlsaBackend
import Dispatch
import Glibc
import Synchronization

/// What a pump's thread is asked to do, set by the transport and read by the thread between periods. Every
/// ALSA call is made on the pump's own thread: a PCM is not safe to drive from two threads at once.
struct PumpOrders: Sendable {
    var running = false
    /// Stops asked for so far, and carried out so far: the thread goes back to the start (player) or finishes
    /// the file (recorder) and closes the device, then says how far it has got.
    var stopsAsked = 0
    var stopsDone = 0
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

    /// Tells the thread to stop and waits until it has carried out this very stop: the device is closed when
    /// this returns (or after two seconds, should the device hang).
    func stopAndWait() {
        var ticket = 0
        update {
            $0.running = false
            $0.stopsAsked += 1
            ticket = $0.stopsAsked
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while orders.withLock({ $0.stopsDone < ticket && !$0.closing }) && ContinuousClock.now < deadline {
            usleep(5_000)
        }
    }

    /// Tells the thread to let go of everything and waits until it has: when `close()` returns, the device is
    /// closed (its stream gone from the sound server) and the file finished.
    func closeAndWait() {
        let first = orders.withLock { orders in
            defer { orders.closing = true }
            return !orders.closing
        }
        wakeUp.signal()
        // A thread stuck in a device that hangs is left behind after a few seconds rather than hanging the app.
        if first { _ = ended.wait(timeout: .now() + .seconds(3)) }
    }

    /// The thread's look at its orders between periods: what they are, with a new fade handed to `ramp` (and
    /// taken, so that it starts once).
    func takeOrders(into ramp: inout GainRamp, rate: Int) -> PumpOrders {
        let taken = orders.withLock { orders in
            defer { orders.fade = nil }
            return orders
        }
        if let fade = taken.fade { ramp.setTarget(fade.gain, overFrames: fade.milliseconds * rate / 1000) }
        return taken
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
}
