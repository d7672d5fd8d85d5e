internal import CSystemd

/// An object path served by a connection; `remove()` takes it off the bus.
public final class DBusServedObjectHandle: Sendable {
    private let loop: BusLoop
    private let id: ObjectIdentifier
    public let path: String

    init(loop: BusLoop, id: ObjectIdentifier, path: String) {
        self.loop = loop
        self.id = id
        self.path = path
    }

    /// Stops serving the path (calls then get UnknownObject from sd-bus). Idempotent.
    public func remove() {
        let id = id
        loop.enqueue { loop in
            guard let loop, let object = loop.servedObjects.removeValue(forKey: id) else { return }
            object.dropSlot()
        }
    }
}

extension DBusConnection {
    /// Serves `path` (and, with `subtree`, every path below it) with one handler that answers every method call,
    /// Introspect and Properties included. The handler runs as a task of its own, never on the loop thread;
    /// `DBusMethodCall.senderUID` is the caller's uid from the bus daemon.
    public func serve(
        path: String,
        subtree: Bool = false,
        handler: @escaping DBusMethodHandler
    ) async throws(DBusError) -> DBusServedObjectHandle {
        let operation = "serve \(path)"
        return try await onLoop(operation) { [self] loop throws(DBusError) in
            let object = ServedObject(path: path, loop: loop, handler: handler) { [weak self] sender in
                await self?.callerUID(sender)
            }
            var slot: OpaquePointer? = nil
            let added = path.withCString { path in
                subtree
                    ? sd_bus_add_fallback(loop.bus, &slot, path, objectThunk, object.userdata)
                    : sd_bus_add_object(loop.bus, &slot, path, objectThunk, object.userdata)
            }
            guard added >= 0 else { throw .system(operation: operation, errno: added) }
            object.slot = slot
            let id = ObjectIdentifier(object)
            loop.servedObjects[id] = object
            return DBusServedObjectHandle(loop: loop, id: id, path: path)
        }
    }
}
