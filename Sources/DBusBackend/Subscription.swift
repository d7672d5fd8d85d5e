internal import CSystemd

/// A received signal.
public struct DBusSignal: Sendable, Hashable {
    /// The sender's unique name (`:1.42`).
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
    /// The arguments' signature.
    public var signature: String
}

/// One match rule and the stream its signals go to.
///
/// `BusLoop.subscriptions` holds the box while the match is installed; the slot is ours (not floating), so the
/// stream's end can remove the match. Touched only on the loop thread (the stream's continuation is thread-safe).
final class Subscription: @unchecked Sendable {
    let rule: String
    private let deliver: @Sendable (DBusSignal) -> Void
    private let finish: @Sendable () -> Void
    var slot: OpaquePointer?
    /// The subscriber waiting for the bus to confirm the match.
    var installed: CheckedContinuation<Void, any Error>?
    private(set) var ended = false

    init(rule: String, deliver: @escaping @Sendable (DBusSignal) -> Void, finish: @escaping @Sendable () -> Void) {
        self.rule = rule
        self.deliver = deliver
        self.finish = finish
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> Subscription {
        Unmanaged<Subscription>.fromOpaque(userdata!).takeUnretainedValue()
    }

    func receive(_ message: OpaquePointer) {
        guard !ended else { return }
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        // A signal this layer cannot read (a unix descriptor in it) is not delivered rather than delivered wrong.
        guard let arguments = try? MessageReader.arguments(of: message, operation: "signal") else { return }
        deliver(
            DBusSignal(
                sender: text(sd_bus_message_get_sender(message)),
                path: text(sd_bus_message_get_path(message)),
                interface: text(sd_bus_message_get_interface(message)),
                member: text(sd_bus_message_get_member(message)),
                arguments: arguments,
                signature: MessageReader.signature(of: message)
            )
        )
    }

    /// The bus's answer to AddMatch.
    func confirm(_ reply: OpaquePointer) {
        guard let installed else { return }
        self.installed = nil
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            installed.resume(
                throwing: DBusError.remote(
                    name: error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                    message: error?.pointee.message.map { String(cString: $0) } ?? "AddMatch failed for \(rule)"
                )
            )
            end()
        } else {
            installed.resume()
        }
    }

    /// Ends the stream (and fails a subscriber still waiting for the match with `error`, by default a lost
    /// connection). The slot stays until `dropSlot()`.
    func end(_ error: DBusError? = nil) {
        guard !ended else { return }
        ended = true
        installed?.resume(throwing: error ?? DBusError.connectionLost(operation: "AddMatch \(rule)"))
        installed = nil
        finish()
    }

    func dropSlot() {
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
    }
}

/// The match callback of `sd_bus_add_match_async`: 0, so that other matches see the message too.
let signalThunk: sd_bus_message_handler_t = { message, userdata, _ in
    if let message { Subscription.from(userdata).receive(message) }
    return 0
}

/// The install callback of `sd_bus_add_match_async`.
let matchInstalledThunk: sd_bus_message_handler_t = { reply, userdata, _ in
    if let reply { Subscription.from(userdata).confirm(reply) }
    return 1
}
