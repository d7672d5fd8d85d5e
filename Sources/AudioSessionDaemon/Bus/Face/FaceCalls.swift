import AudioSessionDaemonCore
import AudioSessionProtocol
import DBusBackend
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Answers the D-Bus calls to the face: each becomes the control request `audiosessionctl` would send (read
/// from the same JSON, so a bad value gets the socket's own error text) and the reply becomes the D-Bus answer.
/// Whatever a caller sends gets an answer, an error when it is wrong: never a crash, never silence.
struct FaceCalls: Sendable {
    let client: FaceClient
    /// The daemon's own user; it and root may call (the control socket's rule for control requests).
    let ownerUID: UInt32

    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"

    func answer(_ call: DBusMethodCall) async -> DBusMethodReply {
        guard let uid = call.senderUID, uid == ownerUID || uid == 0 else {
            let who = call.senderUID.map { "user \($0)" } ?? "a caller whose user the bus daemon did not tell"
            return .error(
                name: Self.accessDenied,
                message: "only user \(ownerUID) (the daemon's) and root may use \(FaceInterface.name); \(call.sender) is \(who)"
            )
        }
        guard call.path == FaceInterface.path else {
            return .error(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object at \(call.path)")
        }
        let interface = call.interface ?? Self.interface(of: call.member)
        switch (interface, call.member) {
        case (FaceInterface.introspectableInterface, "Introspect"):
            return takes("", call) ?? .values([.string(FaceInterface.introspection)])
        case (FaceInterface.propertiesInterface, "Get"):
            if let wrong = takes("ss", call, "interface_name, property_name") { return wrong }
            return await get(interface: text(call, 0), property: text(call, 1))
        case (FaceInterface.propertiesInterface, "GetAll"):
            if let wrong = takes("s", call, "interface_name") { return wrong }
            return await getAll(interface: text(call, 0))
        case (FaceInterface.propertiesInterface, "Set"):
            if let wrong = takes("ssv", call, "interface_name, property_name, value") { return wrong }
            return await set(
                interface: text(call, 0),
                property: text(call, 1),
                value: call.arguments[2].unwrapped
            )
        case (FaceInterface.name, "SetSilentSwitch"):
            if let wrong = takes("s", call, "position") { return wrong }
            return await control(["op": json("setSilentSwitch"), "position": json(text(call, 0))])
        case (FaceInterface.name, "SelectOutput"):
            if let wrong = takes("s", call, "port") { return wrong }
            return await control(["op": json("selectOutput"), "port": json(text(call, 0))])
        case (FaceInterface.name, "RecentDecisions"):
            if let wrong = takes("u", call, "count") { return wrong }
            return await recentDecisions(call.arguments[0].integer ?? 0)
        case (FaceInterface.name, _), (FaceInterface.propertiesInterface, _),
            (FaceInterface.introspectableInterface, _):
            return .unknownMethod(call)
        default:
            return .error(name: Self.unknownInterface, message: "no interface \(interface) at \(FaceInterface.path)")
        }
    }

    /// A call without an interface names a method of one of the object's interfaces (D-Bus allows it).
    private static func interface(of member: String) -> String {
        switch member {
        case "Introspect": FaceInterface.introspectableInterface
        case "Get", "GetAll", "Set": FaceInterface.propertiesInterface
        default: FaceInterface.name
        }
    }

    /// Argument `index` of a call whose signature `takes` has checked (a string there).
    private func text(_ call: DBusMethodCall, _ index: Int) -> String {
        index < call.arguments.count ? call.arguments[index].string ?? "" : ""
    }

    /// Nil when the call has the signature the method takes; otherwise the error saying what it takes.
    private func takes(_ signature: String, _ call: DBusMethodCall, _ names: String = "") -> DBusMethodReply? {
        guard call.signature != signature else { return nil }
        let expected = signature.isEmpty ? "no arguments" : "(\(signature)): \(names)"
        let got = call.signature.isEmpty ? "none" : "(\(call.signature))"
        return .invalidArguments("\(call.member) takes \(expected); got \(got)")
    }

    // MARK: Properties

    private func get(interface: String, property: String) async -> DBusMethodReply {
        if let wrong = Self.check(interface) { return wrong }
        guard FaceInterface.propertyNames.contains(property) else { return Self.noSuchProperty(property) }
        switch await status() {
        case .properties(let properties):
            guard let value = properties[property] else { return Self.noSuchProperty(property) }
            return .values([.variant(value)])
        case .failed(let error): return error
        }
    }

    private func getAll(interface: String) async -> DBusMethodReply {
        if let wrong = Self.check(interface) { return wrong }
        switch await status() {
        case .properties(let properties): return .values([.properties(properties)])
        case .failed(let error): return error
        }
    }

    private func set(interface: String, property: String, value: DBusValue) async -> DBusMethodReply {
        if let wrong = Self.check(interface) { return wrong }
        guard FaceInterface.propertyNames.contains(property) else { return Self.noSuchProperty(property) }
        guard property == "SilentSwitch" else {
            return .error(name: Self.propertyReadOnly, message: "\(property) is read-only; only SilentSwitch can be set")
        }
        guard case .string(let position) = value else {
            return .invalidArguments("SilentSwitch is a string (s), \"ring\" or \"silent\"; got \(value.signature)")
        }
        return await control(["op": json("setSilentSwitch"), "position": json(position)])
    }

    /// Properties of another interface are not ours; the empty name means "any interface" (D-Bus allows it).
    private static func check(_ interface: String) -> DBusMethodReply? {
        guard interface != FaceInterface.name && !interface.isEmpty else { return nil }
        return .error(name: unknownInterface, message: "no interface \(interface) at \(FaceInterface.path)")
    }

    private static func noSuchProperty(_ property: String) -> DBusMethodReply {
        .error(
            name: unknownProperty,
            message: "no property \(property) in \(FaceInterface.name); it has \(FaceInterface.propertyNames.joined(separator: ", "))"
        )
    }

    /// The properties now, from a `status` request: a read after a write sees the write.
    private func status() async -> PropertiesRead {
        let reply = await client.send(Request(.status))
        guard reply.ok, let status = reply.result?.status else { return .failed(Self.error(for: reply)) }
        return .properties(FaceInterface.properties(of: status))
    }

    private enum PropertiesRead {
        case properties([String: DBusValue])
        case failed(DBusMethodReply)
    }

    // MARK: Methods

    private func recentDecisions(_ count: Int64) async -> DBusMethodReply {
        let reply = await client.send(line: ["op": json("decisions"), "count": String(count)])
        guard reply.ok else { return Self.error(for: reply) }
        let decisions = (reply.result?.decisions ?? []).map { decision in
            DBusValue.structure([.uint64(UInt64(decision.number)), .string(decision.text)])
        }
        return .values([.array(elementSignature: "(ts)", decisions)])
    }

    /// A control request that answers only success or failure.
    private func control(_ fields: [String: String]) async -> DBusMethodReply {
        let reply = await client.send(line: fields)
        return reply.ok ? .empty : Self.error(for: reply)
    }

    /// A string as JSON text.
    private func json(_ text: String) -> String { LineCoding.encode(text) }

    /// The daemon's error as a D-Bus error, its text as it is: a bad value is InvalidArgs, a refusal
    /// AccessDenied, anything else `org.audiosessiond.Daemon1.Error.<Code>` (`StateUnavailable`).
    static func error(for reply: Reply) -> DBusMethodReply {
        let code = reply.error?.code ?? "failed"
        let message = reply.error?.message ?? "the daemon did not say why"
        switch code {
        case "badField", "badParam", "missingField", "unknownField":
            return .invalidArguments(message)
        case "notPermitted":
            return .error(name: accessDenied, message: message)
        default:
            return .error(name: "\(FaceInterface.name).Error.\(code.prefix(1).uppercased() + code.dropFirst())", message: message)
        }
    }
}
