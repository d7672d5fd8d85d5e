import AlsaBackend
import Dispatch
import Locking

/// Plays a file to an ALSA PCM on a thread of its own, a period at a time, through a gain ramp. The device is
/// open only while there is something to play: stopped or at the end, its stream is gone from the sound server
/// (where it would otherwise count as a running stream of the session).
final class PlaybackPump: TransportPump {
    let file: AudioFileReader
    let control = PumpControl()
    private let device: PumpDevice
    /// Called on the pump's thread when the last frame has been played.
    private let reachedEnd: @Sendable ((any Error)?) -> Void

    /// `open` opens the device, each time the pump starts moving samples.
    init(
        file: AudioFileReader,
        open: @escaping @Sendable () throws -> AlsaPCM,
        reachedEnd: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.file = file
        self.device = PumpDevice(open: open)
        self.reachedEnd = reachedEnd
        startThread(named: "audiosession-player") { [self] in loop() }
    }

    var underruns: Int { device.glitches }

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

    var position: Int { control.orders.withLock { $0.position } }

    private func loop() {
        var ramp = GainRamp()
        var paused = false
        var played = 0
        defer {
            device.close()
            file.close()
            control.threadEnded()
        }
        while true {
            let orders = control.takeOrders(into: &ramp, rate: file.format.rate)
            if orders.closing { return }
            if orders.stopsAsked > orders.stopsDone {
                device.close()
                paused = false
                // Back to the start; `position` keeps where it stopped until it plays again.
                file.seek(toFrame: 0)
                played = 0
                control.orders.withLock { $0.stopsDone = orders.stopsAsked }
            }
            guard orders.running else {
                if !paused, let pcm = device.current {
                    if !pcm.canPause {
                        // Pausing drops what the device still had queued (dmix cannot pause in place): go back
                        // in the file by as much, so that resuming skips nothing.
                        let queued = (try? pcm.delayFrames) ?? 0
                        file.seek(toFrame: max(0, file.position - queued))
                        played = max(0, played - queued)
                    }
                    try? pcm.pause()
                    paused = true
                }
                control.sleep()
                continue
            }
            do {
                let pcm = try device.open()
                if paused {
                    try? pcm.resume()
                    paused = false
                }
                var chunk = try file.readFrames(max: max(pcm.periodFrames, 256))
                if chunk.isEmpty {
                    try pcm.drain()
                    device.close()
                    control.update { $0.running = false }
                    reachedEnd(nil)
                    continue
                }
                ramp.apply(to: &chunk, format: file.format)
                played += try pcm.write(chunk)
                let heard = max(0, played - ((try? pcm.delayFrames) ?? 0))
                control.orders.withLock { $0.position = heard }
            } catch {
                device.close()
                control.update { $0.running = false }
                reachedEnd(error)
            }
        }
    }
}
