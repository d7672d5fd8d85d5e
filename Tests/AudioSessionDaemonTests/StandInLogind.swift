import DBusBackend
import Locking

/// A STAND-IN for logind (real logind cannot run in the tests): `org.freedesktop.login1` on a private bus, with
/// the two Manager methods the daemon calls and one session whose `LockedHint` the test sets, emitting
/// `PropertiesChanged` and the `Lock`/`Unlock` signals as logind does. `behaviour` makes it a bad peer.
final class StandInLogind: Sendable {
    enum Behaviour: Sendable {
        /// Answers as logind does.
        case logind
        /// Answers every call with a D-Bus error.
        case errors
        /// Answers `LockedHint` with a string.
        case wrongType
    }

    static let name = "org.freedesktop.login1"
    static let sessionID = "c7"
    static let sessionPath = "/org/freedesktop/login1/session/c7"
    static let sessionInterface = "org.freedesktop.login1.Session"

    let connection: DBusConnection
    private let locked = Locked(false)
    private let behaviour: Behaviour
    /// Every call it got (member names), for tests that check what was asked.
    let calls = Locked<[String]>([])

    init(address: String, behaviour: Behaviour = .logind) async throws {
        self.behaviour = behaviour
        connection = try DBusConnection(.address(address))
        _ = try await connection.serve(path: "/org/freedesktop/login1", subtree: true) { [weak self] call in
            await self?.answer(call) ?? .error(name: "org.freedesktop.DBus.Error.Failed", message: "gone")
        }
        guard try await connection.requestName(Self.name) == .primaryOwner else {
            throw LiveTestError("the stand-in logind could not own \(Self.name)")
        }
    }

    func close() { connection.close() }

    /// Sets `LockedHint` and tells the bus: PropertiesChanged, and Lock or Unlock.
    func setLocked(_ value: Bool, signal: Bool = true, propertiesChanged: Bool = true) async throws {
        locked.withLock { $0 = value }
        if propertiesChanged {
            try await connection.emitPropertiesChanged(
                path: Self.sessionPath,
                interface: Self.sessionInterface,
                changed: ["LockedHint": .bool(value)]
            )
        }
        if signal {
            try await connection.emitSignal(
                path: Self.sessionPath,
                interface: Self.sessionInterface,
                member: value ? "Lock" : "Unlock"
            )
        }
    }

    private func answer(_ call: DBusMethodCall) async -> DBusMethodReply {
        calls.withLock { $0.append(call.member) }
        if behaviour == .errors {
            return .error(name: "org.freedesktop.login1.NoSuchSession", message: "stand-in: refusing on purpose")
        }
        switch (call.path, call.interface, call.member) {
        case ("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSession"):
            guard call.arguments.first?.string == Self.sessionID else {
                return .error(name: "org.freedesktop.login1.NoSuchSession", message: "no session \(call.arguments)")
            }
            return .values([.objectPath(Self.sessionPath)])
        case ("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSessionByPID"):
            return .values([.objectPath(Self.sessionPath)])
        case (Self.sessionPath, "org.freedesktop.DBus.Properties", "Get"):
            guard call.arguments.count == 2, call.arguments[1].string == "LockedHint" else {
                return .invalidArguments("the stand-in has LockedHint only")
            }
            let value = locked.withLock { $0 }
            return .values([.variant(behaviour == .wrongType ? .string(value ? "yes" : "no") : .bool(value))])
        default:
            return .unknownMethod(call)
        }
    }
}
