/// A failure of a D-Bus call, subscription or connection.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer answered with a D-Bus error (`name` such as `org.freedesktop.DBus.Error.UnknownMethod`).
    case remote(name: String, message: String)
    /// No answer came within the call's timeout.
    case timedOut(operation: String)
    /// The destination has no owner on the bus (ServiceUnknown, NameHasNoOwner), or left it without answering.
    case noSuchName(String)
    /// The connection to the bus was lost while the call was pending or before it was made.
    case connectionLost(operation: String)
    /// The connection was closed by its owner (`close()`), or was never opened.
    case closed(operation: String)
    /// The task awaiting the call was cancelled; a reply that comes later is dropped.
    case cancelled(operation: String)
    /// The reply or signal does not have the signature the caller expects.
    case unexpectedSignature(operation: String, expected: String, actual: String)
    /// A message could not be read, e.g. a type this layer does not carry (unix descriptors).
    case malformedMessage(operation: String, reason: String)
    /// An sd-bus call failed with an errno (negated, as sd-bus returns it).
    case system(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .remote(let name, let message): "D-Bus error \(name): \(message)"
        case .timedOut(let operation): "\(operation): no reply within the timeout"
        case .noSuchName(let name): "no such name on the bus: \(name)"
        case .connectionLost(let operation): "\(operation): the connection to the bus was lost"
        case .closed(let operation): "\(operation): the connection is closed"
        case .cancelled(let operation): "\(operation): cancelled"
        case .unexpectedSignature(let operation, let expected, let actual):
            "\(operation): expected signature '\(expected)', got '\(actual)'"
        case .malformedMessage(let operation, let reason): "\(operation): malformed message: \(reason)"
        case .system(let operation, let errno): "\(operation) failed: \(DBusError.errnoText(errno))"
        }
    }

    /// The D-Bus error name of a remote error, if this is one.
    public var remoteName: String? {
        if case .remote(let name, _) = self { return name }
        return nil
    }

    static func errnoText(_ errno: Int32) -> String {
        guard let text = strerror(errno < 0 ? -errno : errno) else { return "errno \(errno)" }
        return String(cString: text) + " (errno \(errno < 0 ? -errno : errno))"
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
