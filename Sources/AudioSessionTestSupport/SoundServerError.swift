/// Why a private sound server could not be started or used.
public struct SoundServerError: Error, CustomStringConvertible, Sendable {
    /// A stable name for the kind of failure, to test against.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case packageMissing, startFailed, commandFailed, timedOut, invalidArgument, notRunning
        }
        private let value: Value

        /// A program the server or the test needs is not installed; the message names the Debian package.
        public static let packageMissing = Code(value: .packageMissing)
        /// The server did not come up; the context holds the tail of its logs.
        public static let startFailed = Code(value: .startFailed)
        /// A command (`pactl`, the sound-server script, a spawned client) failed; the context holds its stderr.
        public static let commandFailed = Code(value: .commandFailed)
        /// A command did not finish in time and was killed.
        public static let timedOut = Code(value: .timedOut)
        /// A name or description that cannot be passed to the server safely.
        public static let invalidArgument = Code(value: .invalidArgument)
        /// The server was stopped for good.
        public static let notRunning = Code(value: .notRunning)

        /// The code's name, e.g. `startFailed`.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, and what to do about it where there is something to do.
    public var message: String
    /// Details: the tail of the server logs, or a command's stderr. Empty if there are none.
    public var context: String

    /// An error of `code`.
    public init(code: Code, message: String, context: String = "") {
        self.code = code
        self.message = message
        self.context = context
    }

    /// The message, then the context on the following lines.
    public var description: String {
        let details = context.trimmingWhitespace
        return details.isEmpty ? "\(code): \(message)" : "\(code): \(message)\n\(details)"
    }
}

extension String {
    var trimmingWhitespace: String {
        var characters = Substring(self)
        while characters.first?.isWhitespace == true { characters.removeFirst() }
        while characters.last?.isWhitespace == true { characters.removeLast() }
        return String(characters)
    }
}
