import AlsaBackend
import Foundation

/// Records from an ALSA PCM into a WAV file on a thread of its own, through a gain ramp (a muted verdict
/// records silence when the app applies verdicts itself).
final class CapturePump: TransportPump {
    let writer: WAVWriter
    let pcm: AlsaPCM
    let control = PumpControl()
    /// Frames after which the recording ends by itself; nil: until stopped.
    private let limitFrames: Int?
    private let reachedEnd: @Sendable ((any Error)?) -> Void

    init(writer: WAVWriter, pcm: AlsaPCM, limitFrames: Int?, reachedEnd: @escaping @Sendable ((any Error)?) -> Void) {
        self.writer = writer
        self.pcm = pcm
        self.limitFrames = limitFrames
        self.reachedEnd = reachedEnd
        PumpControl.startThread(named: "audiosession-recorder") { [self] in loop() }
    }

    func run() { control.update { $0.running = true } }
    func halt() { control.update { $0.running = false } }
    func stop() { control.update { $0.running = false; $0.stopRequested = true } }
    func fade(to gain: Double, milliseconds: Int) { control.update { $0.fade = (gain, milliseconds) } }
    func close() { control.update { $0.closing = true } }

    var position: Int { control.orders.withLock { $0.position } }

    private func loop() {
        var ramp = GainRamp()
        var capturing = false
        var recorded = 0
        let periodFrames = max(pcm.periodFrames, 256)
        defer {
            try? writer.finish()
            pcm.close()
        }
        while true {
            let orders = control.orders.withLock { orders in
                defer {
                    orders.fade = nil
                    orders.stopRequested = false
                }
                return orders
            }
            if orders.closing { return }
            if let fade = orders.fade {
                ramp.setTarget(fade.gain, overFrames: fade.milliseconds * writer.format.rate / 1000)
            }
            if orders.stopRequested {
                try? writer.finish()
            }
            guard orders.running else {
                if capturing {
                    // What the device captured while paused is not part of the recording.
                    try? pcm.drop()
                    capturing = false
                }
                control.sleep()
                continue
            }
            capturing = true
            do {
                let wanted = limitFrames.map { min(periodFrames, $0 - recorded) } ?? periodFrames
                var chunk = try pcm.read(frames: max(wanted, 0))
                ramp.apply(to: &chunk, format: writer.format)
                try writer.append(chunk)
                recorded += chunk.count / writer.format.bytesPerFrame
                control.orders.withLock { $0.position = recorded }
                if let limitFrames, recorded >= limitFrames {
                    control.update { $0.running = false }
                    reachedEnd(nil)
                }
            } catch {
                control.update { $0.running = false }
                reachedEnd(error)
            }
        }
    }
}
