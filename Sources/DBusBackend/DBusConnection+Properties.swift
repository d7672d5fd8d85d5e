/// A `PropertiesChanged` signal.
public struct DBusPropertiesChange: Sendable, Hashable {
    /// The sender's unique name.
    public var sender: String
    public var path: String
    public var interface: String
    /// The new values (variants unwrapped).
    public var changed: [String: DBusValue]
    /// Properties that changed without their value in the signal: read them again.
    public var invalidated: [String]
}

extension DBusConnection {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// A property's value (the variant unwrapped).
    public func property(
        destination: String,
        path: String,
        interface: String,
        name: String,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> DBusValue {
        let reply = try await call(
            destination: destination,
            path: path,
            interface: Self.propertiesInterface,
            member: "Get",
            arguments: [.string(interface), .string(name)],
            timeout: timeout,
            replySignature: "v"
        )
        return reply[0].unwrapped
    }

    /// Sets a property (the value is wrapped in a variant here).
    public func setProperty(
        destination: String,
        path: String,
        interface: String,
        name: String,
        value: DBusValue,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) {
        _ = try await call(
            destination: destination,
            path: path,
            interface: Self.propertiesInterface,
            member: "Set",
            arguments: [.string(interface), .string(name), .variant(value)],
            timeout: timeout,
            replySignature: ""
        )
    }

    /// All properties of an interface (variants unwrapped).
    public func allProperties(
        destination: String,
        path: String,
        interface: String,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [String: DBusValue] {
        let reply = try await call(
            destination: destination,
            path: path,
            interface: Self.propertiesInterface,
            member: "GetAll",
            arguments: [.string(interface)],
            timeout: timeout,
            replySignature: "a{sv}"
        )
        return (reply[0].stringKeyed ?? [:]).mapValues(\.unwrapped)
    }

    /// The `PropertiesChanged` signals of the object at `path` (of `interface` only, if given; from `sender`
    /// only, if given: a unique name, or a well-known name that the bus daemon resolves to its owner).
    public func propertiesChanges(
        sender: String? = nil,
        path: String,
        interface: String? = nil
    ) async throws(DBusError) -> AsyncStream<DBusPropertiesChange> {
        let rule = Self.matchRule([
            "type": "signal", "sender": sender, "path": path, "interface": Self.propertiesInterface,
            "member": "PropertiesChanged", "arg0": interface,
        ])
        return try await subscribe(rule) { signal in
            guard signal.signature == "sa{sv}as", case .string(let interface) = signal.arguments[0] else { return nil }
            return DBusPropertiesChange(
                sender: signal.sender,
                path: signal.path,
                interface: interface,
                changed: (signal.arguments[1].stringKeyed ?? [:]).mapValues(\.unwrapped),
                invalidated: signal.arguments[2].stringArray ?? []
            )
        }
    }

    /// Emits `PropertiesChanged` for the object at `path`.
    public func emitPropertiesChanged(
        path: String,
        interface: String,
        changed: [String: DBusValue],
        invalidated: [String] = []
    ) async throws(DBusError) {
        try await emitSignal(
            path: path,
            interface: Self.propertiesInterface,
            member: "PropertiesChanged",
            arguments: [.string(interface), .properties(changed), .strings(invalidated)]
        )
    }
}
