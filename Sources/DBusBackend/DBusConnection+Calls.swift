internal import CSystemd

extension DBusConnection {
    /// The timeout of a call that names none: sd-bus's own default.
    public static let defaultTimeout = Duration.seconds(25)

    /// Calls a method and returns the reply's values.
    /// - Parameters:
    ///   - destination: a well-known or unique name; nil only on a peer-to-peer connection.
    ///   - replySignature: if given, a reply of another signature is `DBusError.unexpectedSignature`.
    /// - Throws: `DBusError.remote` for the peer's error, `.noSuchName` when nobody owns `destination`,
    ///   `.timedOut` after `timeout`, `.cancelled` when the calling task is cancelled (at once),
    ///   `.connectionLost`/`.closed`, `.unexpectedSignature`, `.system`.
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
        let token = CallToken()
        let loop = loop
        return try await withTaskCancellationHandler {
            await Reply<[DBusValue]>.outcome { waiter in
                loop.enqueue { loop in
                    Self.issue(
                        on: loop,
                        token,
                        waiter,
                        operation,
                        destination,
                        path,
                        interface,
                        member,
                        arguments,
                        microseconds,
                        replySignature
                    )
                }
            }
        } onCancel: {
            token.cancel()
            loop.enqueue { loop in
                loop?.pendingCalls[ObjectIdentifier(token)]?.fail(.cancelled(operation: operation))
            }
        }.get()
    }

    /// Sends the call, on the loop thread; its reply (or failure) finishes `waiter`.
    private static func issue(
        on loop: BusLoop?,
        _ token: CallToken,
        _ waiter: Reply<[DBusValue]>.Waiter,
        _ operation: String,
        _ destination: String?,
        _ path: String,
        _ interface: String?,
        _ member: String,
        _ arguments: [DBusValue],
        _ microseconds: UInt64,
        _ replySignature: String?
    ) {
        guard let loop else { return waiter.finish(.failure(.closed(operation: operation))) }
        guard !loop.lost else { return waiter.finish(.failure(.connectionLost(operation: operation))) }
        // Cancelled before it was sent: the cancellation's own job found nothing to cancel.
        guard !token.isCancelled else {
            return waiter.finish(.failure(.cancelled(operation: operation)))
        }
        do throws(DBusError) {
            let message = try methodCall(loop.bus, destination, path, interface, member, operation)
            defer { sd_bus_message_unref(message) }
            try MessageWriter.append(arguments, to: message, operation: operation)
            let pending = PendingCall(
                token: token,
                operation: operation,
                destination: destination,
                expectedSignature: replySignature,
                timeout: .microseconds(Int64(clamping: microseconds)),
                loop: loop,
                waiter: waiter
            )
            var slot: OpaquePointer? = nil
            let sent = sd_bus_call_async(loop.bus, &slot, message, replyThunk, pending.userdata, microseconds)
            guard sent >= 0 else { throw .system(operation: operation, errno: sent) }
            pending.slot = slot
            loop.pendingCalls[ObjectIdentifier(token)] = pending
        } catch {
            waiter.finish(.failure(error))
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
