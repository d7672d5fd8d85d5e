/// A change of a name's owner on the bus.
public struct DBusNameOwnerChange: Sendable, Hashable {
    public var name: String
    /// The unique name that owned it; nil when the name is new.
    public var oldOwner: String?
    /// The unique name that owns it now; nil when the name has gone.
    public var newOwner: String?
}

/// What `RequestName` did.
public enum DBusNameRequestResult: UInt32, Sendable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

/// The bus daemon's own methods (`org.freedesktop.DBus`).
extension DBusConnection {
    static let busName = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"

    private func busCall(
        _ member: String,
        _ arguments: [DBusValue],
        _ replySignature: String,
        _ timeout: Duration
    ) async throws(DBusError) -> DBusValue? {
        try await call(
            destination: Self.busName,
            path: Self.busPath,
            interface: Self.busName,
            member: member,
            arguments: arguments,
            timeout: timeout,
            replySignature: replySignature
        ).first
    }

    /// The names on the bus, unique and well-known.
    public func listNames(timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError) -> [String] {
        try await busCall("ListNames", [], "as", timeout)?.stringArray ?? []
    }

    /// The unique name owning `name`, or nil when nobody does.
    public func nameOwner(
        _ name: String,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> String? {
        do {
            return try await busCall("GetNameOwner", [.string(name)], "s", timeout)?.string
        } catch .noSuchName {
            return nil
        }
    }

    /// The process id of the connection owning `name`.
    public func unixProcessID(
        of name: String,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> UInt32 {
        guard case .uint32(let pid) = try await busCall("GetConnectionUnixProcessID", [.string(name)], "u", timeout)
        else { throw .unexpectedSignature(operation: "GetConnectionUnixProcessID", expected: "u", actual: "") }
        return pid
    }

    /// The uid of the connection owning `name`.
    public func unixUser(
        of name: String,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> UInt32 {
        guard case .uint32(let uid) = try await busCall("GetConnectionUnixUser", [.string(name)], "u", timeout)
        else { throw .unexpectedSignature(operation: "GetConnectionUnixUser", expected: "u", actual: "") }
        return uid
    }

    /// Asks for a well-known name. `replace`: take it from an owner that allows replacement; `queue`: wait in
    /// line when it is taken (otherwise `.exists`).
    public func requestName(
        _ name: String,
        allowReplacement: Bool = false,
        replace: Bool = false,
        queue: Bool = false,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> DBusNameRequestResult {
        let flags: UInt32 = (allowReplacement ? 1 : 0) | (replace ? 2 : 0) | (queue ? 0 : 4)
        guard case .uint32(let code) = try await busCall("RequestName", [.string(name), .uint32(flags)], "u", timeout),
            let result = DBusNameRequestResult(rawValue: code)
        else { throw .malformedMessage(operation: "RequestName \(name)", reason: "an unknown result code") }
        return result
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: String, timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError) {
        _ = try await busCall("ReleaseName", [.string(name)], "u", timeout)
    }

    /// Owner changes of `name` (of every name, if nil), from the moment this returns.
    public func nameOwnerChanges(for name: String? = nil) async throws(DBusError) -> AsyncStream<DBusNameOwnerChange> {
        let rule = Self.matchRule([
            "type": "signal", "sender": Self.busName, "path": Self.busPath, "interface": Self.busName,
            "member": "NameOwnerChanged", "arg0": name,
        ])
        return try await subscribe(rule) { signal in
            guard signal.signature == "sss", let name = signal.arguments[0].string,
                let old = signal.arguments[1].string, let new = signal.arguments[2].string
            else { return nil }
            return DBusNameOwnerChange(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new)
        }
    }

    /// The uid of a caller of a served object, asked once per unique name; nil when the bus daemon cannot say.
    func callerUID(_ sender: String) async -> UInt32? {
        if let known = callerUIDs.withLock({ $0[sender] }) { return known }
        guard let uid = try? await unixUser(of: sender, timeout: .seconds(5)) else { return nil }
        callerUIDs.withLock { cache in
            // Unique names are never reused, but callers come and go: keep the map small.
            if cache.count >= 256 { cache.removeAll() }
            cache[sender] = uid
        }
        return uid
    }
}
