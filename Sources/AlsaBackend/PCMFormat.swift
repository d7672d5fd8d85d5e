/// The layout of interleaved PCM audio: sample format, channel count and rate.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// How one sample is stored; all little-endian, interleaved.
    public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
        /// Unsigned 8-bit, silence at 128.
        case u8
        /// Signed 16-bit.
        case s16le
        /// Signed 24-bit packed in 3 bytes.
        case s24le
        /// Signed 32-bit.
        case s32le
        /// IEEE 754 32-bit float, full scale -1...1.
        case float32le

        /// Bytes one sample of this format takes.
        public var bytesPerSample: Int {
            switch self {
            case .u8: 1
            case .s16le: 2
            case .s24le: 3
            case .s32le, .float32le: 4
            }
        }
    }

    /// How one sample is stored.
    public var sampleFormat: SampleFormat
    /// Samples per frame.
    public var channels: Int
    /// Frames per second.
    public var rate: Int

    /// The channel counts accepted (ALSA and WAV allow more, but nothing here needs them).
    public static let channelRange = 1...32
    /// The rates accepted, in frames per second.
    public static let rateRange = 1_000...768_000

    /// Creates a format; `channels` and `rate` are checked when a device or file uses it.
    public init(sampleFormat: SampleFormat, channels: Int, rate: Int) {
        self.sampleFormat = sampleFormat
        self.channels = channels
        self.rate = rate
    }

    /// Parses `FORMAT:CHANNELS:RATE`, e.g. `s16le:2:48000`, as given for a raw PCM file. Throws
    /// `badRawFormat` saying which part is wrong.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let usage = "raw PCM format '\(text)'"
        guard parts.count == 3 else {
            throw AlsaError(
                code: .badRawFormat,
                message: "\(usage) has \(parts.count) part(s); expected FORMAT:CHANNELS:RATE, e.g. s16le:2:48000"
            )
        }
        guard let sampleFormat = SampleFormat(rawValue: parts[0].lowercased()) else {
            let known = SampleFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw AlsaError(
                code: .badRawFormat,
                message: "\(usage): unknown sample format '\(parts[0])'; use one of \(known)"
            )
        }
        guard let channels = Int(parts[1]), Self.channelRange.contains(channels) else {
            throw AlsaError(
                code: .badRawFormat,
                message: "\(usage): channel count '\(parts[1])' must be a number in \(Self.channelRange)"
            )
        }
        guard let rate = Int(parts[2]), Self.rateRange.contains(rate) else {
            throw AlsaError(
                code: .badRawFormat,
                message: "\(usage): rate '\(parts[2])' must be a number of Hz in \(Self.rateRange)"
            )
        }
        self.init(sampleFormat: sampleFormat, channels: channels, rate: rate)
    }

    /// Bytes one frame (one sample per channel) takes.
    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

    /// The format as `parsing` reads it, e.g. `s16le:2:48000`.
    public var description: String { "\(sampleFormat.rawValue):\(channels):\(rate)" }

    /// Throws `unsupportedFormat` unless channels and rate are in range; `context` says whose format it is.
    func validate(_ context: String) throws {
        guard Self.channelRange.contains(channels), Self.rateRange.contains(rate) else {
            throw AlsaError(
                code: .unsupportedFormat,
                message: "\(context): \(channels) channel(s) at \(rate) Hz is not supported; "
                    + "channels must be in \(Self.channelRange), rate in \(Self.rateRange)"
            )
        }
    }
}
