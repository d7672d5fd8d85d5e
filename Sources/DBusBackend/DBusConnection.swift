internal import CSystemd
import Locking

/// A connection to a D-Bus bus (sd-bus) on a thread of its own.
///
/// Every method is safe from any task. Each call resumes exactly once: with the reply, the peer's error, a
/// timeout, or a `DBusError` when the connection is lost or closed while it is pending. Signal streams end when
/// the connection is lost or closed.
public final class DBusConnection: Sendable {
    /// Which bus to connect to.
    public enum Bus: Sendable, Hashable {
        /// The user's session bus: `$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
        case session
        /// The system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
        case system
        /// A bus at this address, e.g. `unix:path=/tmp/x/bus` (a private bus in the tests).
        case address(String)
    }

    let loop: BusLoop
    /// Unique name → uid of callers, so a served object asks the bus daemon once per caller.
    let callerUIDs = Locked([String: UInt32]())

    /// Connects (the connection's `Hello` completes in the background; calls made meanwhile wait for it).
    /// - Throws: `DBusError.system` when the bus cannot be reached.
    public init(_ bus: Bus) throws(DBusError) {
        var handle: OpaquePointer? = nil
        let opened: Int32
        let operation: String
        switch bus {
        case .session:
            operation = "sd_bus_open_user"
            opened = sd_bus_open_user(&handle)
        case .system:
            operation = "sd_bus_open_system"
            opened = sd_bus_open_system(&handle)
        case .address(let address):
            operation = "connect to \(address)"
            opened = Self.open(address: address, &handle)
        }
        guard opened >= 0, let handle else { throw .system(operation: operation, errno: opened) }
        loop = try BusLoop(bus: handle)
    }

    private static func open(address: String, _ handle: inout OpaquePointer?) -> Int32 {
        var bus: OpaquePointer? = nil
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { return result }
        result = address.withCString { sd_bus_set_address(bus, $0) }
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_flush_close_unref(bus)
            return result
        }
        handle = bus
        return 0
    }

    deinit {
        close()
    }

    /// Fails pending calls, ends signal streams, takes served objects off the bus, disconnects and ends the
    /// connection's thread (waiting for it, unless called from a handler on that thread). Idempotent.
    public func close() {
        loop.stop()
    }

    /// Runs `body` on the loop thread and returns its result; fails with `closed` after `close()` and with
    /// `connectionLost` once the bus has gone.
    func onLoop<Value: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (BusLoop) throws(DBusError) -> Value
    ) async throws(DBusError) -> Value {
        try await Reply<Value>.outcome { waiter in
            loop.enqueue { loop in
                guard let loop else { return waiter.finish(.failure(.closed(operation: operation))) }
                guard !loop.lost else { return waiter.finish(.failure(.connectionLost(operation: operation))) }
                waiter.finish(Result { () throws(DBusError) in try body(loop) })
            }
        }.get()
    }

    /// This connection's unique name on the bus (`:1.42`).
    public func uniqueName() async throws(DBusError) -> String {
        try await onLoop("sd_bus_get_unique_name") { loop throws(DBusError) in
            var name: UnsafePointer<CChar>? = nil
            let result = sd_bus_get_unique_name(loop.bus, &name)
            guard result >= 0, let name else { throw .system(operation: "sd_bus_get_unique_name", errno: result) }
            return String(cString: name)
        }
    }

    /// True until the connection is closed or the bus goes away.
    public func isConnected() async -> Bool {
        (try? await onLoop("sd_bus_is_open") { loop in sd_bus_is_open(loop.bus) > 0 }) ?? false
    }
}
