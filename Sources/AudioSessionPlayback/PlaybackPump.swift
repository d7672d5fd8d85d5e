import AlsaBackend
import Foundation

/// Plays a file to an ALSA PCM on a thread of its own, a period at a time, through a gain ramp.
final class PlaybackPump: TransportPump {
    let file: AudioFileReader
    let pcm: AlsaPCM
    let control = PumpControl()
    /// Called on the pump's thread when the last frame has been played.
    private let reachedEnd: @Sendable ((any Error)?) -> Void

    init(file: AudioFileReader, pcm: AlsaPCM, reachedEnd: @escaping @Sendable ((any Error)?) -> Void) {
        self.file = file
        self.pcm = pcm
        self.reachedEnd = reachedEnd
        PumpControl.startThread(named: "audiosession-player") { [self] in loop() }
    }

    func run() { control.update { $0.running = true } }
    func halt() { control.update { $0.running = false } }
    func stop() { control.update { $0.running = false; $0.stopRequested = true } }
    func fade(to gain: Double, milliseconds: Int) { control.update { $0.fade = (gain, milliseconds) } }
    func close() { control.update { $0.closing = true } }

    var position: Int { control.orders.withLock { $0.position } }

    private func loop() {
        var ramp = GainRamp()
        var paused = false
        var played = 0
        let periodFrames = max(pcm.periodFrames, 256)
        defer {
            pcm.close()
            file.close()
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
                ramp.setTarget(fade.gain, overFrames: fade.milliseconds * file.format.rate / 1000)
            }
            if orders.stopRequested {
                try? pcm.drop()
                paused = false
                file.seek(toFrame: 0)
                played = 0
                control.orders.withLock { $0.position = 0 }
            }
            guard orders.running else {
                if !paused && played > 0 {
                    try? pcm.pause()
                    paused = true
                }
                control.sleep()
                continue
            }
            if paused {
                try? pcm.resume()
                paused = false
            }
            do {
                var chunk = try file.readFrames(max: periodFrames)
                if chunk.isEmpty {
                    try pcm.drain()
                    control.update { $0.running = false }
                    reachedEnd(nil)
                    continue
                }
                ramp.apply(to: &chunk, format: file.format)
                played += try pcm.write(chunk)
                let heard = max(0, played - ((try? pcm.delayFrames) ?? 0))
                control.orders.withLock { $0.position = heard }
            } catch {
                control.update { $0.running = false }
                reachedEnd(error)
            }
        }
    }
}
