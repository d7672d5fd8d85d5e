internal import CSystemd

/// A method call in flight and the caller awaiting its reply.
///
/// The bus owns the call's (floating) slot; `BusLoop.pendingCalls` holds the only strong reference to this box
/// from the send until the reply, the timeout, the loss of the connection or `close()`, and the slot's `userdata`
/// is unretained. Touched only on the loop thread.
final class PendingCall: @unchecked Sendable {
    let operation: String
    let destination: String?
    /// The reply signature the caller expects, or nil to take any.
    let expectedSignature: String?
    private unowned let loop: BusLoop
    private var continuation: CheckedContinuation<[DBusValue], any Error>?

    init(
        operation: String,
        destination: String?,
        expectedSignature: String?,
        loop: BusLoop,
        continuation: CheckedContinuation<[DBusValue], any Error>
    ) {
        self.operation = operation
        self.destination = destination
        self.expectedSignature = expectedSignature
        self.loop = loop
        self.continuation = continuation
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> PendingCall {
        Unmanaged<PendingCall>.fromOpaque(userdata!).takeUnretainedValue()
    }

    func succeed(_ values: [DBusValue]) {
        guard let continuation else { return }
        self.continuation = nil
        loop.pendingCalls[ObjectIdentifier(self)] = nil
        continuation.resume(returning: values)
    }

    func fail(_ error: DBusError) {
        guard let continuation else { return }
        self.continuation = nil
        loop.pendingCalls[ObjectIdentifier(self)] = nil
        continuation.resume(throwing: error)
    }

    /// Handles the reply (or the error sd-bus made up for a timeout or a lost connection).
    func receive(_ reply: OpaquePointer) {
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            return fail(error(from: reply))
        }
        let signature = MessageReader.signature(of: reply)
        if let expectedSignature, signature != expectedSignature {
            return fail(.unexpectedSignature(operation: operation, expected: expectedSignature, actual: signature))
        }
        do {
            succeed(try MessageReader.arguments(of: reply, operation: operation))
        } catch {
            fail(error)
        }
    }

    private func error(from reply: OpaquePointer) -> DBusError {
        let error = sd_bus_message_get_error(reply)
        let name = error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error?.pointee.message.map { String(cString: $0) } ?? ""
        switch name {
        case "org.freedesktop.DBus.Error.NoReply":
            // sd-bus makes this error up both for a timeout and for a connection that went away.
            return sd_bus_is_open(loop.bus) > 0
                ? .timedOut(operation: operation) : .connectionLost(operation: operation)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .noSuchName(destination ?? message)
        default:
            return .remote(name: name, message: message)
        }
    }
}

/// The reply callback of `sd_bus_call_async`.
let replyThunk: sd_bus_message_handler_t = { reply, userdata, _ in
    if let reply { PendingCall.from(userdata).receive(reply) }
    return 1
}
