import AlsaBackend
import Dispatch
import Locking
import Synchronization

/// Records from an ALSA PCM into a WAV file on a thread of its own, through a gain ramp (a muted verdict
/// records silence when the app applies verdicts itself).
final class CapturePump: TransportPump {
    let writer: WAVWriter
    let control = PumpControl()
    private let device: PumpDevice
    /// Frames after which the recording ends by itself; nil: until stopped.
    private let limitFrames: Int?
    private let reachedEnd: @Sendable ((any Error)?) -> Void

    init(
        writer: WAVWriter,
        open: @escaping @Sendable () throws -> AlsaPCM,
        limitFrames: Int?,
        reachedEnd: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.writer = writer
        self.device = PumpDevice(open: open)
        self.limitFrames = limitFrames
        self.reachedEnd = reachedEnd
        startThread(named: "audiosession-recorder") { [self] in loop() }
    }

    func run() { control.update { $0.running = true } }
    func halt() { control.update { $0.running = false } }
    /// A transfer in progress gives up at once (its frames are dropped): stopping goes back to the start anyway.
    func stop() {
        device.interrupt()
        control.stopAndWait()
    }
    func fade(to gain: Double, milliseconds: Int) { control.update { $0.fade = (gain, milliseconds) } }
    func close() {
        device.interrupt()
        control.closeAndWait()
    }

    var overruns: Int { device.glitches }

    /// Whether the file was finished (stopped, or its full length recorded): nothing more goes into it.
    var isFileFinished: Bool { fileFinished.withLock { $0 } }
    private let fileFinished = Mutex(false)

    var position: Int { control.orders.withLock { $0.position } }

    private func loop() {
        var ramp = GainRamp()
        var recorded = 0
        defer {
            try? writer.finish()
            device.close()
            control.threadEnded()
        }
        while true {
            let orders = control.takeOrders(into: &ramp, rate: writer.format.rate)
            if orders.closing { return }
            if orders.stopsAsked > orders.stopsDone {
                try? writer.finish()
                fileFinished.withLock { $0 = true }
                device.close()
                control.orders.withLock { $0.stopsDone = orders.stopsAsked }
            }
            guard orders.running else {
                // What the device would capture while paused is not part of the recording: it is closed.
                device.close()
                control.sleep()
                continue
            }
            do {
                let pcm = try device.open()
                let periodFrames = max(pcm.periodFrames, 256)
                let wanted = limitFrames.map { min(periodFrames, $0 - recorded) } ?? periodFrames
                var chunk = try pcm.read(frames: max(wanted, 0))
                ramp.apply(to: &chunk, format: writer.format)
                try writer.append(chunk)
                recorded += chunk.count / writer.format.bytesPerFrame
                control.orders.withLock { $0.position = recorded }
                if let limitFrames, recorded >= limitFrames {
                    try? writer.finish()
                    fileFinished.withLock { $0 = true }
                    device.close()
                    control.update { $0.running = false }
                    reachedEnd(nil)
                }
            } catch {
                device.close()
                control.update { $0.running = false }
                reachedEnd(error)
            }
        }
    }
}
