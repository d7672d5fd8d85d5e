/// A failure of the ALSA backend: a device, control or file that cannot be used, with what was wrong and where.
public struct AlsaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; stable, for code to branch on (the message is for people).
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The PCM, card or CTL device does not exist (ALSA's `-ENOENT`, `-ENODEV`, `-ENXIO`).
        case deviceNotFound
        /// The device exists but another program holds it (ALSA's `-EBUSY`).
        case deviceBusy
        /// The file cannot be opened or read: missing, a directory, no permission.
        case unreadableFile
        /// The file cannot be created or written.
        case unwritableFile
        /// The file is not a RIFF/WAVE file, or lacks a chunk a WAV file needs.
        case notWAV
        /// The audio format (a WAV format tag, a bit depth, a rate or channel count) is not supported, by this
        /// reader or by the device.
        case unsupportedFormat
        /// A raw PCM format string such as `s16le:2:48000` is malformed.
        case badRawFormat
        /// A read or write on a device or file failed.
        case io
        /// The mixer control does not exist on the card; the message lists those it has.
        case controlNotFound
        /// The control exists but cannot do this, e.g. it has no playback volume.
        case notSupported
        /// A recorded control list (`amixer contents`) is malformed.
        case badControlList
        /// An argument is out of range, e.g. bytes that are not whole frames.
        case invalidArgument
        /// The object was closed.
        case closed
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and where, in words a person can act on (with ALSA's own text when ALSA failed).
    public let message: String
    /// The file concerned, if any.
    public let path: String?
    /// The ALSA device concerned (`pulse`, `hw:0,0`), if any.
    public let device: String?

    /// Creates an error.
    public init(code: Code, message: String, path: String? = nil, device: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.device = device
    }

    public var description: String {
        "\(message) [\(code.rawValue)]"
    }
}
