internal import CPulse

/// A failure reported by libpulse or the sound server, or a call made in the wrong state.
public struct PulseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A PulseAudio error number (`PA_ERR_*`), stable across versions.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The raw `PA_ERR_*` number.
        public let rawValue: Int32

        /// Wraps a raw `PA_ERR_*` number; unknown numbers are kept as they are.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// Access denied (`PA_ERR_ACCESS`).
        public static let accessDenied = Code(rawValue: Int32(PA_ERR_ACCESS.rawValue))
        /// Invalid argument (`PA_ERR_INVALID`).
        public static let invalidArgument = Code(rawValue: Int32(PA_ERR_INVALID.rawValue))
        /// No such entity: the stream, device or module is gone (`PA_ERR_NOENTITY`).
        public static let noEntity = Code(rawValue: Int32(PA_ERR_NOENTITY.rawValue))
        /// The server refused or could not be reached (`PA_ERR_CONNECTIONREFUSED`).
        public static let connectionRefused = Code(rawValue: Int32(PA_ERR_CONNECTIONREFUSED.rawValue))
        /// The server did not answer in time (`PA_ERR_TIMEOUT`).
        public static let timeout = Code(rawValue: Int32(PA_ERR_TIMEOUT.rawValue))
        /// The connection to the server was lost (`PA_ERR_CONNECTIONTERMINATED`).
        public static let connectionTerminated = Code(rawValue: Int32(PA_ERR_CONNECTIONTERMINATED.rawValue))
        /// The stream was killed by the server or another client (`PA_ERR_KILLED`).
        public static let killed = Code(rawValue: Int32(PA_ERR_KILLED.rawValue))
        /// The server address is malformed (`PA_ERR_INVALIDSERVER`).
        public static let invalidServer = Code(rawValue: Int32(PA_ERR_INVALIDSERVER.rawValue))
        /// A module failed to load (`PA_ERR_MODINITFAILED`).
        public static let moduleInitFailed = Code(rawValue: Int32(PA_ERR_MODINITFAILED.rawValue))
        /// The call is not valid in the current state, e.g. before `connect()` or after `close()` (`PA_ERR_BADSTATE`).
        public static let badState = Code(rawValue: Int32(PA_ERR_BADSTATE.rawValue))
        /// The server does not support this (`PA_ERR_NOTSUPPORTED`).
        public static let notSupported = Code(rawValue: Int32(PA_ERR_NOTSUPPORTED.rawValue))
        /// A protocol extension is missing, e.g. module-stream-restore is not loaded (`PA_ERR_NOEXTENSION`).
        public static let noExtension = Code(rawValue: Int32(PA_ERR_NOEXTENSION.rawValue))
        /// The server does not implement this (`PA_ERR_NOTIMPLEMENTED`).
        public static let notImplemented = Code(rawValue: Int32(PA_ERR_NOTIMPLEMENTED.rawValue))
    }

    /// The PulseAudio error number.
    public let code: Code
    /// The libpulse call or step that failed, e.g. `pa_context_set_sink_input_volume`.
    public let operation: String
    /// What went wrong, in words (`pa_strerror`, sometimes with more context).
    public let message: String

    /// Creates an error; `message` defaults to libpulse's text for `code`.
    public init(code: Code, operation: String, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.message = message ?? PulseError.text(for: code)
    }

    public var description: String {
        "\(operation) failed: \(message) (pa error \(code.rawValue))"
    }

    /// libpulse's description of an error number.
    static func text(for code: Code) -> String {
        guard let text = pa_strerror(code.rawValue) else { return "unknown error" }
        return String(cString: text)
    }

    /// The last error of a context, as libpulse recorded it (only with the mainloop lock held).
    static func last(of context: OpaquePointer?, operation: String) -> PulseError {
        let number = context.map { pa_context_errno($0) } ?? Int32(PA_ERR_BADSTATE.rawValue)
        return PulseError(code: Code(rawValue: number), operation: operation)
    }

    /// The error for any call after `close()`.
    static func closed(_ operation: String) -> PulseError {
        PulseError(code: .badState, operation: operation, message: "the connection is closed")
    }
}
