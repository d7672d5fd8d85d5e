import AlsaBackend
import AudioSessionClient
import AudioSessionPolicy

/// Records from an ALSA device into a WAV file, obeying its audio session (category `record` or
/// `playAndRecord`): it pauses when interrupted and when its input device goes away, resumes as a player does,
/// and, when the daemon runs with no sound server, records silence while the verdict says muted.
public final class AudioRecorder: Sendable {
    public let format: PCMFormat
    public let path: String
    private let pump: CapturePump
    private let transport: SessionTransport

    /// Creates the file and opens the device (an `AlsaError` naming whichever fails). `maximumDuration`, in
    /// seconds, ends the recording by itself.
    public init(
        path: String,
        format: PCMFormat = PCMFormat(sampleFormat: .s16le, channels: 1, rate: 48_000),
        device: String = "default",
        session: AudioSession = .shared,
        controls: TransportRules.Controls = .media,
        maximumDuration: Double? = nil
    ) throws {
        try? session.connect()
        // A missing or unsuitable device is reported now; the device itself is opened when recording starts.
        try AlsaPCM.probe(device: device, direction: .capture, format: format)
        // An existing file is replaced, as `arecord` does.
        let writer = try WAVWriter(path: path, format: format)
        self.path = path
        self.format = format
        let ended = EndRelay()
        pump = CapturePump(
            writer: writer,
            open: { try AlsaPCM(device: device, direction: .capture, format: format) },
            limitFrames: maximumDuration.map { Int($0 * Double(format.rate)) }
        ) { error in ended.fire(error) }
        transport = SessionTransport(session: session, direction: .input, controls: controls, pump: pump)
        ended.connect(transport, finished: "recorded its full length")
    }

    /// Activates the session and records. Throws `badParam` when the session's category has no input (only
    /// `record` and `playAndRecord` do: any other would record silence, O1), and the session's error when it
    /// cannot be activated.
    public func record() throws {
        guard !pump.isFileFinished else {
            throw AlsaError(
                code: .closed,
                message: "the recording in \(path) is finished; make a new AudioRecorder to record again",
                path: path
            )
        }
        let category = transport.session.category
        guard category == .record || category == .playAndRecord else {
            throw AudioSessionError(
                .badParam,
                "category \(category.rawValue) has no input: set record or playAndRecord before recording (O1)",
                rule: "O1",
                field: "category"
            )
        }
        try transport.handleNow(.play, because: "started")
    }
    public func pause() { try? transport.handleNow(.pause, because: "paused") }
    /// Stops and finishes the file.
    public func stop() { try? transport.handleNow(.stop, because: "stopped") }

    /// Stops, finishes the file and lets go of the device and the stream. Called when the recorder goes away,
    /// too.
    public func close() {
        stop()
        transport.close()
    }

    deinit { close() }

    public var state: TransportRules.State { transport.state }
    /// Whether it is recording now.
    public var isRecording: Bool { state == .playing }
    /// Seconds recorded.
    public var currentTime: Double { Double(pump.position) / Double(format.rate) }
    /// Times the device had more than was read and dropped some.
    public var overruns: Int { pump.overruns }
    public var events: AsyncStream<TransportEvent> { transport.events }
}
