import DBusBackend
import Locking

/// A STAND-IN for a desktop's screensaver: `org.freedesktop.ScreenSaver` at /org/freedesktop/ScreenSaver on a
/// private session bus, answering `GetActive` and emitting `ActiveChanged` when the test sets it.
final class StandInScreenSaver: Sendable {
    static let name = "org.freedesktop.ScreenSaver"
    static let path = "/org/freedesktop/ScreenSaver"

    let connection: DBusConnection
    private let active: Locked<Bool>

    init(address: String, active: Bool = false) async throws {
        self.active = Locked(active)
        connection = try DBusConnection(.address(address))
        _ = try await connection.serve(path: Self.path) { [weak self] call in
            guard let self else { return .error(name: "org.freedesktop.DBus.Error.Failed", message: "gone") }
            guard call.interface == Self.name, call.member == "GetActive" else { return .unknownMethod(call) }
            return .values([.bool(self.active.withLock { $0 })])
        }
        guard try await connection.requestName(Self.name) == .primaryOwner else {
            throw LiveTestError("the stand-in screensaver could not own \(Self.name)")
        }
    }

    func close() { connection.close() }

    func setActive(_ value: Bool) async throws {
        active.withLock { $0 = value }
        try await connection.emitSignal(
            path: Self.path,
            interface: Self.name,
            member: "ActiveChanged",
            arguments: [.bool(value)]
        )
    }
}
