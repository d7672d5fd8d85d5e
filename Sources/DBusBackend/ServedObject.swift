internal import CSystemd

/// A method call to an object this connection serves.
public struct DBusMethodCall: Sendable {
    /// The caller's unique name.
    public var sender: String
    /// The caller's uid as the bus daemon reports it; nil when it could not be asked.
    public var senderUID: UInt32?
    public var path: String
    /// The interface; callers may leave it out, D-Bus allows that.
    public var interface: String?
    public var member: String
    public var arguments: [DBusValue]
    /// The arguments' signature.
    public var signature: String
}

/// What a served object answers.
public enum DBusMethodReply: Sendable {
    /// A method return with these values.
    case values([DBusValue])
    /// A D-Bus error, e.g. `org.freedesktop.DBus.Error.AccessDenied`.
    case error(name: String, message: String)

    /// A method return without values.
    public static let empty = DBusMethodReply.values([])

    /// The error for a method an object does not have.
    public static func unknownMethod(_ call: DBusMethodCall) -> DBusMethodReply {
        .error(
            name: "org.freedesktop.DBus.Error.UnknownMethod",
            message: "no method \(call.interface.map { $0 + "." } ?? "")\(call.member) at \(call.path)"
        )
    }

    /// The error for arguments a method cannot take.
    public static func invalidArguments(_ message: String) -> DBusMethodReply {
        .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
}

/// Answers each method call to an object; runs as a task of its own, off the loop thread.
public typealias DBusMethodHandler = @Sendable (DBusMethodCall) async -> DBusMethodReply

/// An object path (or a subtree of paths) served with one handler. The slot is ours, so `remove` can take the
/// object off the bus. Touched only on the loop thread.
final class ServedObject: @unchecked Sendable {
    let path: String
    let handler: DBusMethodHandler
    var slot: OpaquePointer?
    unowned let loop: BusLoop
    /// Looks up a caller's uid (a call to the bus daemon, made from the handler's task).
    let callerUID: @Sendable (String) async -> UInt32?

    init(
        path: String,
        loop: BusLoop,
        handler: @escaping DBusMethodHandler,
        callerUID: @escaping @Sendable (String) async -> UInt32?
    ) {
        self.path = path
        self.loop = loop
        self.handler = handler
        self.callerUID = callerUID
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> ServedObject {
        Unmanaged<ServedObject>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Takes a method call: reads it here, answers it from a task, replies on the loop thread. 1: handled.
    func receive(_ message: OpaquePointer) -> Int32 {
        var type: UInt8 = 0
        guard sd_bus_message_get_type(message, &type) >= 0, Int(type) == SD_BUS_MESSAGE_METHOD_CALL
        else { return 0 }
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        let held = HeldMessage(message)
        let arguments: [DBusValue]
        do {
            arguments = try MessageReader.arguments(of: message, operation: "method call to \(path)")
        } catch {
            BusLoop.reply(to: held, with: .invalidArguments("\(error)"), loop: loop)
            return 1
        }
        let call = DBusMethodCall(
            sender: text(sd_bus_message_get_sender(message)) ?? "",
            senderUID: nil,
            path: text(sd_bus_message_get_path(message)) ?? path,
            interface: text(sd_bus_message_get_interface(message)),
            member: text(sd_bus_message_get_member(message)) ?? "",
            arguments: arguments,
            signature: MessageReader.signature(of: message)
        )
        let handler = handler
        let callerUID = callerUID
        let loop = loop
        Task {
            var call = call
            if !call.sender.isEmpty { call.senderUID = await callerUID(call.sender) }
            let reply = await handler(call)
            loop.enqueue { loop in
                guard let loop else {
                    // The connection closed while the handler ran: nobody to reply to.
                    return held.releaseLate()
                }
                BusLoop.reply(to: held, with: reply, loop: loop)
            }
        }
        return 1
    }

    func dropSlot() {
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
    }
}

extension BusLoop {
    /// Sends `reply` to the held call and frees it. On the loop thread.
    static func reply(to call: HeldMessage, with reply: DBusMethodReply, loop: BusLoop) {
        defer { call.release() }
        guard let message = call.pointer else { return }
        switch reply {
        case .values(let values):
            var answer: OpaquePointer? = nil
            guard sd_bus_message_new_method_return(message, &answer) >= 0, let answer else { return }
            defer { sd_bus_message_unref(answer) }
            do {
                try MessageWriter.append(values, to: answer, operation: "reply")
                _ = sd_bus_send(loop.bus, answer, nil)
            } catch {
                // The handler's values do not form a message (an array element of the wrong type): say so.
                sendError(to: message, name: "org.freedesktop.DBus.Error.Failed", text: "\(error)")
            }
        case .error(let name, let text):
            sendError(to: message, name: name, text: text)
        }
    }

    private static func sendError(to message: OpaquePointer, name: String, text: String) {
        name.withCString { namePointer in
            text.withCString { textPointer in
                var error = sd_bus_error(name: namePointer, message: textPointer, _need_free: 0)
                if sd_bus_reply_method_error(message, &error) < 0 {
                    // Not a valid error name: the caller still gets an answer rather than a timeout.
                    "org.freedesktop.DBus.Error.Failed".withCString { failedName in
                        var failed = sd_bus_error(name: failedName, message: textPointer, _need_free: 0)
                        _ = sd_bus_reply_method_error(message, &failed)
                    }
                }
            }
        }
    }
}

/// The message callback of `sd_bus_add_object` / `sd_bus_add_fallback`.
let objectThunk: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message else { return 0 }
    return ServedObject.from(userdata).receive(message)
}
