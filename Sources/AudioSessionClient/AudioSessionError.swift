import AudioSessionProtocol

/// Why a call to the daemon failed: a stable `code` to switch on, the POLICY rule and request field when the
/// daemon named them, and a message a person can act on.
public struct AudioSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, stable across releases: the daemon's policy and protocol codes, and the library's own.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// An illegal category, mode or option (C4-C6), or an output override outside `playAndRecord` (R5).
        case badParam
        /// A call is active: only a call may activate now (A2).
        case insufficientPriority
        /// A nonmixable session in the background cannot interrupt another app (A3).
        case cannotInterruptOthers
        /// Deactivated although a stream was still running (D2); the deactivation did take effect.
        case isBusy
        /// The daemon's sound server is gone: nothing can be activated until it is back (M1).
        case mediaServicesFailed
        /// The daemon could not read a request (a bug in this library if it ever happens).
        case malformedMessage
        /// A request line was longer than the daemon reads.
        case messageTooLarge
        /// The daemon does not know the operation: it is older than this library.
        case unknownOperation
        /// A required request field was absent.
        case missingField
        /// A request field the operation does not take.
        case unknownField
        /// A request field with a value of the wrong type or outside its vocabulary.
        case badField
        /// Only the daemon's own user (or root) may do this, e.g. declare a call.
        case notPermitted
        /// The daemon could not write the state the request needs (a full disk): the message names the file and
        /// the system's error. Nothing was changed; try again once there is space. A library older than this code
        /// reports it as `unexpectedReply`, with `stateUnavailable` in the message.
        case stateUnavailable
        /// No daemon listens on the socket, or it went away; the message names the socket path.
        case daemonUnavailable
        /// The daemon answered with something this library cannot read (a newer or broken daemon).
        case unexpectedReply
    }

    /// What went wrong.
    public var code: Code
    /// The POLICY rule that refused the request, e.g. `"A2"`, when the daemon named one.
    public var rule: String?
    /// The request field at fault, when one is.
    public var field: String?
    /// What happened and what to do about it.
    public var message: String
    /// True when the request took effect although it reports an error (`isBusy`: the session *is* inactive).
    public var tookEffect: Bool

    /// An error with the given parts; the library makes these, tests and wrappers may too.
    public init(_ code: Code, _ message: String, rule: String? = nil, field: String? = nil, tookEffect: Bool = false) {
        self.code = code
        self.message = message
        self.rule = rule
        self.field = field
        self.tookEffect = tookEffect
    }

    /// The daemon's error as sent; an unknown code is kept in the message rather than lost.
    init(_ body: ErrorBody) {
        let code = Code(rawValue: body.code) ?? .unexpectedReply
        self.init(
            code,
            code == .unexpectedReply ? "\(body.code): \(body.message)" : body.message,
            rule: body.rule?.rawValue,
            field: body.field,
            tookEffect: body.tookEffect ?? false
        )
    }

    /// No daemon at `path`, with what to check.
    static func daemonUnavailable(_ path: String, _ detail: String) -> AudioSessionError {
        AudioSessionError(
            .daemonUnavailable,
            "cannot reach audiosessiond at \(path) (\(detail)); is it running, and is AUDIOSESSIOND_SOCKET right?"
        )
    }

    /// `code (rule): message`.
    public var description: String {
        "\(code.rawValue)\(rule.map { " (\($0))" } ?? ""): \(message)"
    }
}
