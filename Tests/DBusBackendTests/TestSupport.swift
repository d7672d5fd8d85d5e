import AudioSessionTestSupport
import DBusBackend
import Foundation
import Locking

/// The first element of `stream` that matches, within a safety limit.
func first<Element: Sendable>(
    _ stream: AsyncStream<Element>,
    _ what: String,
    where predicate: @escaping @Sendable (Element) -> Bool = { _ in true }
) async throws -> Element {
    try await withTimeout(20, what) {
        for await element in stream where predicate(element) { return element }
        throw TimedOut(what: "\(what) (the stream ended)")
    }
}

/// Waits, within a safety limit, for `stream` to end; the elements it still had.
func end<Element: Sendable>(of stream: AsyncStream<Element>, _ what: String) async throws -> [Element] {
    try await withTimeout(20, what) {
        var seen: [Element] = []
        for await element in stream { seen.append(element) }
        return seen
    }
}

/// Runs `body` with a fresh private bus, stopping it afterwards whatever happens.
func withPrivateBus<Result>(_ body: (PrivateSessionBus) async throws -> Result) async throws -> Result {
    let bus = try await PrivateSessionBus.start()
    defer { bus.stop() }
    return try await body(bus)
}

/// A gate a served method waits on; `open()` lets every waiter through (also those that come later).
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A test service on the bus: `org.audiosessiond.Test` at `/org/audiosessiond/Test`, with
/// - `Echo(...)`: returns its arguments; `Caller()`: the caller's unique name and uid;
/// - `Fail()`: a D-Bus error; `BadReply()`: values that do not form a message; `Never()`: answers only when `gate` opens; `WrongType()`: an int32, where its
///   introspection promises a string;
/// - the property `Volume` (int32) and `Name` (string) through org.freedesktop.DBus.Properties, with
///   PropertiesChanged on Set; Introspect.
final class TestService: Sendable {
    static let name = "org.audiosessiond.Test"
    static let path = "/org/audiosessiond/Test"
    static let interface = "org.audiosessiond.Test"

    let connection: DBusConnection
    let gate = Gate()
    /// Each method call the service receives, in order.
    let calls: AsyncStream<DBusMethodCall>
    private let callSink: AsyncStream<DBusMethodCall>.Continuation
    private let properties = Locked<[String: DBusValue]>(["Volume": .int32(40), "Name": .string("speaker")])

    init(address: String) async throws {
        connection = try DBusConnection(.address(address))
        (calls, callSink) = AsyncStream.makeStream(of: DBusMethodCall.self)
        _ = try await connection.serve(path: Self.path) { [weak self] call in
            guard let self else { return .error(name: "org.audiosessiond.Error.Gone", message: "gone") }
            return await self.answer(call)
        }
        let result = try await connection.requestName(Self.name)
        guard result == .primaryOwner else { throw TimedOut(what: "the name \(Self.name): \(result)") }
    }

    func close() {
        gate.open()
        connection.close()
        callSink.finish()
    }

    private func answer(_ call: DBusMethodCall) async -> DBusMethodReply {
        callSink.yield(call)
        switch (call.interface, call.member) {
        case (Self.interface, "Echo"): return .values(call.arguments)
        case (Self.interface, "Caller"):
            return .values([.string(call.sender), .uint32(call.senderUID ?? UInt32.max)])
        case (Self.interface, "Fail"):
            return .error(name: "org.audiosessiond.Error.Refused", message: "refused on purpose")
        case (Self.interface, "Never"):
            await gate.wait()
            return .empty
        case (Self.interface, "WrongType"): return .values([.int32(7)])
        case (Self.interface, "BadReply"): return .values([.array(elementSignature: "s", [.int32(7)])])
        case ("org.freedesktop.DBus.Introspectable", "Introspect"): return .values([.string(Self.introspection)])
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard call.signature == "ss", let name = call.arguments[1].string,
                let value = properties.withLock({ $0[name] })
            else { return .invalidArguments("no such property") }
            return .values([.variant(value)])
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            return .values([.properties(properties.withLock { $0 })])
        case ("org.freedesktop.DBus.Properties", "Set"):
            guard call.signature == "ssv", let name = call.arguments[1].string else {
                return .invalidArguments("Set takes ssv")
            }
            let value = call.arguments[2].unwrapped
            properties.withLock { $0[name] = value }
            try? await connection.emitPropertiesChanged(
                path: Self.path,
                interface: Self.interface,
                changed: [name: value]
            )
            return .empty
        default: return .unknownMethod(call)
        }
    }

    static let introspection = """
        <node>
          <interface name="org.audiosessiond.Test">
            <method name="Echo"/>
            <method name="WrongType"><arg type="s" direction="out"/></method>
            <property name="Volume" type="i" access="readwrite"/>
          </interface>
        </node>
        """
}
