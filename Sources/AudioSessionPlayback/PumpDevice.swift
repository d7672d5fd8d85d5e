import AlsaBackend
import Synchronization

/// A pump's ALSA PCM: open while the pump moves samples (paused in place while halted), closed when it stops.
/// Only the pump's thread opens and closes it; the counts are read from anywhere.
final class PumpDevice: Sendable {
    private let reopen: @Sendable () throws -> AlsaPCM
    private let state: Mutex<(pcm: AlsaPCM?, closedGlitches: Int)>

    /// Closed until the pump first runs: an open device has a stream on the sound server, which would count
    /// as the session playing (D5) before the app has pressed play.
    init(open: @escaping @Sendable () throws -> AlsaPCM) {
        self.reopen = open
        state = Mutex((nil, 0))
    }

    var current: AlsaPCM? { state.withLock { $0.pcm } }

    /// The open PCM, opening it again if it was closed.
    func open() throws -> AlsaPCM {
        if let pcm = current { return pcm }
        let pcm = try reopen()
        state.withLock { $0.pcm = pcm }
        return pcm
    }

    /// Makes a transfer in progress on the pump's thread return now, dropping what the device has queued: for a
    /// stop or a close, which do not wait for a device that is slow to take samples.
    func interrupt() {
        try? current?.drop()
    }

    func close() {
        let pcm = state.withLock { state -> AlsaPCM? in
            defer { state.pcm = nil }
            if let pcm = state.pcm {
                state.closedGlitches += pcm.direction == .playback ? pcm.underrunCount : pcm.overrunCount
            }
            return state.pcm
        }
        pcm?.close()
    }

    /// Underruns (playback) or overruns (capture) over every time it was open.
    var glitches: Int {
        state.withLock { state in
            state.closedGlitches
                + (state.pcm.map { $0.direction == .playback ? $0.underrunCount : $0.overrunCount } ?? 0)
        }
    }
}
