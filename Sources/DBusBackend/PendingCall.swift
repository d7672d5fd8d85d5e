internal import CSystemd
import Locking

/// Marks a call its task cancelled; its identity keys the call in `BusLoop.pendingCalls`.
final class CallToken: Sendable {
    private let cancelled = Locked(false)

    func cancel() { cancelled.withLock { $0 = true } }
    var isCancelled: Bool { cancelled.withLock { $0 } }
}

/// A method call in flight and the caller awaiting its reply.
///
/// `BusLoop.pendingCalls` holds the only strong reference to this box from the send until the reply, the
/// timeout, the cancellation, the loss of the connection or `close()`; the slot's `userdata` is unretained.
/// The slot is ours: dropping it when the call ends (in the reply callback too: sd-bus holds its own reference
/// while the callback runs) cancels the call in sd-bus, so no callback can come after the box has gone.
/// Touched only on the loop thread.
final class PendingCall: @unchecked Sendable {
    let token: CallToken
    var slot: OpaquePointer?
    let operation: String
    let destination: String?
    /// The reply signature the caller expects, or nil to take any.
    let expectedSignature: String?
    /// When the call's timeout passes (sd-bus's own deadline, counted from a moment later, is not earlier).
    let deadline: ContinuousClock.Instant
    private unowned let loop: BusLoop
    private var waiter: Reply<[DBusValue]>.Waiter?

    init(
        token: CallToken,
        operation: String,
        destination: String?,
        expectedSignature: String?,
        timeout: Duration,
        loop: BusLoop,
        waiter: Reply<[DBusValue]>.Waiter
    ) {
        self.token = token
        self.operation = operation
        self.destination = destination
        self.expectedSignature = expectedSignature
        self.deadline = ContinuousClock.now + timeout
        self.loop = loop
        self.waiter = waiter
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> PendingCall {
        Unmanaged<PendingCall>.fromOpaque(userdata!).takeUnretainedValue()
    }

    func succeed(_ values: [DBusValue]) { finish(.success(values)) }

    func fail(_ error: DBusError) { finish(.failure(error)) }

    private func finish(_ outcome: Result<[DBusValue], DBusError>) {
        guard let waiter else { return }
        self.waiter = nil
        end()
        waiter.finish(outcome)
    }

    private func end() {
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
        loop.pendingCalls[ObjectIdentifier(token)] = nil
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
            // Three causes give this one name: sd-bus makes it up when the timeout passes and when the connection
            // goes; the bus daemon sends it when the destination leaves the bus without answering.
            if sd_bus_is_open(loop.bus) <= 0 { return .connectionLost(operation: operation) }
            if ContinuousClock.now >= deadline { return .timedOut(operation: operation) }
            return .noSuchName(destination ?? message)
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
