internal import CSystemd

extension DBusConnection {
    /// The timeout of a call that names none: sd-bus's own default.
    public static let defaultTimeout = Duration.seconds(25)

    /// Calls a method and returns the reply's values.
    /// - Parameters:
    ///   - destination: a well-known or unique name; nil only on a peer-to-peer connection.
    ///   - replySignature: if given, a reply of another signature is `DBusError.unexpectedSignature`.
    /// - Throws: `DBusError.remote` for the peer's error, `.noSuchName` when nobody owns `destination`,
    ///   `.timedOut` after `timeout`, `.connectionLost`/`.closed`, `.unexpectedSignature`, `.system`.
    public func call(
        destination: String?,
        path: String,
        interface: String?,
        member: String,
        arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout,
        replySignature: String? = nil
    ) async throws(DBusError) -> [DBusValue] {
        let operation = "\(interface.map { $0 + "." } ?? "")\(member) on \(destination ?? "peer") \(path)"
        let microseconds = Self.microseconds(timeout)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                loop.enqueue { loop in
                    guard let loop else { return continuation.resume(throwing: DBusError.closed(operation: operation)) }
                    guard !loop.lost else {
                        return continuation.resume(throwing: DBusError.connectionLost(operation: operation))
                    }
                    do throws(DBusError) {
                        let message = try Self.methodCall(loop.bus, destination, path, interface, member, operation)
                        defer { sd_bus_message_unref(message) }
                        try MessageWriter.append(arguments, to: message, operation: operation)
                        let pending = PendingCall(
                            operation: operation,
                            destination: destination,
                            expectedSignature: replySignature,
                            loop: loop,
                            continuation: continuation
                        )
                        let sent = sd_bus_call_async(loop.bus, nil, message, replyThunk, pending.userdata, microseconds)
                        guard sent >= 0 else { throw .system(operation: operation, errno: sent) }
                        loop.pendingCalls[ObjectIdentifier(pending)] = pending
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } catch let error as DBusError {
            throw error
        } catch {
            throw .malformedMessage(operation: operation, reason: "\(error)")
        }
    }

    static func methodCall(
        _ bus: OpaquePointer,
        _ destination: String?,
        _ path: String,
        _ interface: String?,
        _ member: String,
        _ operation: String
    ) throws(DBusError) -> OpaquePointer {
        var message: OpaquePointer? = nil
        let created = withOptionalCString(destination) { destination in
            path.withCString { path in
                withOptionalCString(interface) { interface in
                    member.withCString { member in
                        sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
                    }
                }
            }
        }
        guard created >= 0, let message else { throw .system(operation: operation, errno: created) }
        return message
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        // 0 would mean sd-bus's default; the shortest timeout is one microsecond.
        return max(1, UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
    }
}

/// `body` with `text` as a C string, or with nil.
func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
