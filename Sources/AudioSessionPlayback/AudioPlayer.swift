import AlsaBackend
import AudioSessionClient
import AudioSessionPolicy
import Dispatch
import FoundationEssentials

/// Plays a WAV or raw PCM file to an ALSA device, obeying its audio session: it pauses when interrupted and
/// when its headphones go away, resumes after an interruption when the session says it may (always, for an app
/// with no media controls), and, when the daemon runs with no sound server, ducks and silences its own samples
/// as the daemon's verdicts say.
///
/// ```swift
/// try AudioSession.shared.setCategory(.playback, mode: .spokenAudio)
/// let player = try AudioPlayer(contentsOf: "episode.wav")
/// try player.play()
/// ```
public final class AudioPlayer: Sendable {
    /// The file's format, duration in frames, and where it is.
    public let format: PCMFormat
    public let frameCount: Int
    public let path: String
    private let pump: PlaybackPump
    private let transport: SessionTransport

    /// Opens the file and the device; either failing is an `AlsaError` that names it (an unreadable file, a
    /// file that is not WAV, a format not supported, a device that does not exist). `rawFormat` reads the file
    /// as raw PCM of that format instead of WAV.
    public init(
        contentsOf path: String,
        rawFormat: PCMFormat? = nil,
        device: String = "default",
        session: AudioSession = .shared,
        controls: TransportRules.Controls = .media
    ) throws {
        let file = try AudioFileReader(path: path, rawFormat: rawFormat)
        // The daemon learns of this process before its device makes a stream on a sound server (a stream of a
        // process with no session would be taken for an unaware app's, U1). No daemon yet: it is told later.
        try? session.connect()
        // A missing or unsuitable device is reported now; the device itself is opened at the first play: an
        // open device is a stream on a sound server, which would activate the session before its time (D5).
        do {
            try AlsaPCM.probe(device: device, direction: .playback, format: file.format)
        } catch {
            file.close()
            throw error
        }
        self.path = path
        format = file.format
        frameCount = file.frameCount
        let ended = EndRelay()
        pump = PlaybackPump(
            file: file,
            open: { try AlsaPCM(device: device, direction: .playback, format: file.format) }
        ) { error in ended.fire(error) }
        transport = SessionTransport(session: session, direction: .output, controls: controls, pump: pump)
        ended.connect(transport, finished: "played to the end")
    }

    /// The same, for a file URL.
    public convenience init(
        contentsOf url: URL,
        rawFormat: PCMFormat? = nil,
        device: String = "default",
        session: AudioSession = .shared,
        controls: TransportRules.Controls = .media
    ) throws {
        try self.init(contentsOf: url.path, rawFormat: rawFormat, device: device, session: session, controls: controls)
    }

    /// Activates the session and plays from where it is. Throws the session's error when it cannot be
    /// activated (a call is active: `insufficientPriority`, A2), and then stays paused.
    public func play() throws { try transport.handleNow(.play, because: "started") }

    /// Pauses where it is.
    public func pause() { try? transport.handleNow(.pause, because: "paused") }

    /// Stops and goes back to the start; the session's stream is removed.
    public func stop() { try? transport.handleNow(.stop, because: "stopped") }

    /// Stops and lets go of the device, the file and the stream. Called when the player goes away, too.
    public func close() {
        stop()
        transport.close()
    }

    deinit { close() }

    public var state: TransportRules.State { transport.state }
    /// Whether it is playing now (not paused, interrupted, stopped or finished).
    public var isPlaying: Bool { state == .playing }
    /// Seconds played, as far as the device has got.
    public var currentTime: Double { Double(pump.position) / Double(format.rate) }
    public var duration: Double { Double(frameCount) / Double(format.rate) }
    /// The gain on its own samples (1 unless it applies the daemon's verdicts itself).
    public var gain: Double { transport.gain }
    /// Times the device ran dry and was restarted.
    public var underruns: Int { pump.underruns }
    /// What happens to it from now on, in order.
    public var events: AsyncStream<TransportEvent> { transport.events }
}
