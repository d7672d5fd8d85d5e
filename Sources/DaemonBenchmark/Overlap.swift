import AudioSessionTestSupport
import Foundation
import PulseBackend
import Locking

/// What a sink plays, recorded, told apart by channel: the music plays its tone on the left channel
/// only and the phone on the right only, so in the mix the first non-zero right sample is the phone's first
/// sample played, and every non-zero left sample from then on is music heard over the call. Muting gives
/// digital zero, so "above silence" is "not zero"; a ducked (quieter) music stream still counts as heard.
final class MixRecording: Sendable {
    private struct Counts {
        /// Frames read since the recording began.
        var frames = 0
        var lastRight: Int?
        /// Non-zero left frames since `reset`.
        var musicFrames = 0
        /// Frames counted after the phone's first sample once `arm`ed; nil before.
        var window: Int?
        /// The first frame with a non-zero right sample since `arm`.
        var phoneStart: Int?
        /// Non-zero left frames in the window from `phoneStart` on.
        var musicAfterPhone = 0
    }

    private let counts = Locked(Counts())
    private let server: PrivateSoundServer
    private let module: UInt32
    private let pipe: Int32

    /// The sink's name: the streams of the trials play to it.
    static let sink = "overlap"

    /// Loads `module-pipe-sink` (named `overlap`, 44.1 kHz stereo s16, paced by the system clock) on `rig`'s
    /// server and reads what it plays from its FIFO on a thread of its own. Why not a record stream on a
    /// monitor source: the daemon takes every record stream for an app's capture, and a call interrupts it
    /// (A6: it is muted from the phone's first moment on), so it would hear nothing of the overlap.
    static func start(_ rig: Rig) throws -> MixRecording {
        let path = rig.server.directory + "/overlap.fifo"
        let output = try rig.server.pactl([
            "load-module", "module-pipe-sink", "sink_name=\(sink)", "file=\(path)", "format=s16le", "rate=44100",
            "channels=2", "use_system_clock_for_timing=yes",
        ])
        guard let module = UInt32(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("\(rig.name): module-pipe-sink did not load: \(output)")
        }
        let pipe = open(path, O_RDONLY)
        guard pipe >= 0 else {
            _ = try? rig.server.unloadModule(module)
            throw BenchError("\(rig.name): cannot read \(path): errno \(errno)")
        }
        let recording = MixRecording(server: rig.server, module: module, pipe: pipe)
        Thread.detachNewThread { recording.readUntilEnd() }
        return recording
    }

    private init(server: PrivateSoundServer, module: UInt32, pipe: Int32) {
        self.server = server
        self.module = module
        self.pipe = pipe
    }

    /// Reads whole frames from the FIFO until the sink goes (its writer closes).
    private func readUntilEnd() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var kept = 0  // bytes of an incomplete frame kept from the previous read
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipe, $0.baseAddress! + kept, $0.count - kept) }
            guard count > 0 else { return }
            let total = kept + count
            let whole = total / 4 * 4
            buffer.withUnsafeBytes { bytes in
                take(UnsafeBufferPointer(start: bytes.baseAddress!.assumingMemoryBound(to: Int16.self), count: whole / 2))
            }
            kept = total - whole
            for i in 0..<kept { buffer[i] = buffer[whole + i] }
        }
    }

    /// Unloads the sink; the reader thread ends with its FIFO.
    func close() {
        _ = try? server.unloadModule(module)
        Glibc.close(pipe)
    }

    /// What was read, for an error message.
    var summary: String {
        counts.withLock { c in
            "the sink played \(c.frames) frames, \(c.musicFrames) with music since the trial began, the last with the "
                + "phone at \(c.lastRight.map(String.init) ?? "none")"
        }
    }

    private func take(_ samples: UnsafeBufferPointer<Int16>) {
        counts.withLock { c in
            for frame in 0..<(samples.count / 2) {
                let left = samples[2 * frame]
                let right = samples[2 * frame + 1]
                let position = c.frames + frame
                if right != 0 {
                    c.lastRight = position
                    if c.window != nil && c.phoneStart == nil { c.phoneStart = position }
                }
                if left != 0 {
                    c.musicFrames += 1
                    if let start = c.phoneStart, let window = c.window, position - start < window { c.musicAfterPhone += 1 }
                }
            }
            c.frames += samples.count / 2
        }
    }

    /// Forgets the music heard so far and stops looking for the phone.
    func reset() {
        counts.withLock { c in
            c.musicFrames = 0
            c.window = nil
            c.phoneStart = nil
            c.musicAfterPhone = 0
        }
    }

    /// Starts looking for the phone's first sample; the music is then counted for `window` frames from it.
    func arm(window: Int) { counts.withLock { $0.window = window } }

    /// Whether the music has been heard for `frames` frames since `reset` and the right channel has been
    /// silent for as long: no tail of an earlier phone stream can be taken for the next one.
    func musicAlone(for frames: Int) -> Bool {
        counts.withLock { c in c.musicFrames >= frames && c.frames - (c.lastRight ?? -frames) >= frames }
    }

    /// The music frames heard in the window after the phone's first sample, once the window has been read.
    func overlap() -> Int? {
        counts.withLock { c in
            guard let start = c.phoneStart, let window = c.window, c.frames - start >= window else { return nil }
            return c.musicAfterPhone
        }
    }
}

/// Polls `condition` every 2 ms until it gives a value, or throws `failure` after `timeout`.
func poll<T>(_ timeout: Duration = .seconds(5), _ failure: @autoclosure () -> String, _ condition: () -> T?) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = condition() { return value }
        guard ContinuousClock.now < deadline else { throw BenchError(failure()) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// Frames per second of the streams and the sink (StreamCore's rate).
let mixRate = 44_100.0

/// Benchmark 5: one audible-overlap trial on `rig`: a music stream plays its tone (left); once it has been
/// heard alone in the mix for 50 ms, an unaware phone stream starts (tone on the right). The music frames heard in the
/// `window` after the phone's first sample reached the sink, in milliseconds (frames / 44.1). Both streams end
/// before this returns.
func overlapTrial(_ rig: Rig, _ mix: MixRecording, window: Duration = .seconds(1)) async throws -> Double? {
    mix.reset()
    let music = try await PulsePlaybackStream.open(
        server: rig.server.pulseServer, name: "overlap-music", properties: ["media.role": "music"],
        sink: MixRecording.sink, signal: .quietToneLeftOnly, pinned: true)
    defer { music.close() }
    // The daemon may hold new music back for the end of the previous call's grace (500 ms).
    let alone = Int(mixRate / 20)
    try await poll(.seconds(5), "\(rig.name): the music was not heard alone in the mix: \(mix.summary)") {
        mix.musicAlone(for: alone) ? () : nil
    }
    let frames = Int(mixRate * Double(window.components.seconds) + mixRate * Double(window.components.attoseconds) / 1e18)
    mix.arm(window: frames)
    let phone = try await PulsePlaybackStream.open(
        server: rig.server.pulseServer, name: "overlap-phone", properties: ["media.role": "phone"],
        sink: MixRecording.sink, signal: .quietToneRightOnly, pinned: true)
    defer { phone.close() }
    let heard = try await poll(window + .seconds(5), "\(rig.name): the phone stream was not heard in the mix: \(mix.summary)") {
        mix.overlap()
    }
    return Double(heard) / mixRate * 1000
}

/// Benchmark 5 on the daemon's and the module's servers, trials alternating.
func measureAudibleOverlap(_ daemonRig: Rig, _ moduleRig: Rig, into results: inout Results) async throws {
    let daemonMix = try MixRecording.start(daemonRig)
    defer { daemonMix.close() }
    let moduleMix = try MixRecording.start(moduleRig)
    defer { moduleMix.close() }
    let timings = try await alternate(
        overlapTrials, "audible overlap at the sink",
        [
            { try await overlapTrial(daemonRig, daemonMix) },
            { try await overlapTrial(moduleRig, moduleMix) },
        ])
    results.overlap = (timings[0], timings[1])
    func list(_ t: Timings) -> String { t.values.map { String(format: "%.1f", $0) }.joined(separator: " ") }
    progress("audible overlap per trial, ms: daemon \(list(timings[0])); module \(list(timings[1]))")
}
