import AudioSessionTestSupport
import DBusBackend
import Foundation
import Testing

@Suite("DBusConnection against a private dbus-daemon", .timeLimit(.minutes(4)))
struct DBusConnectionTests {
    @Test func busDaemonMethods() async throws {
        try await withPrivateBus { bus in
            let connection = try DBusConnection(.address(bus.address))
            defer { connection.close() }
            let unique = try await connection.uniqueName()
            #expect(unique.hasPrefix(":"))
            let names = try await connection.listNames()
            #expect(names.contains("org.freedesktop.DBus"))
            #expect(names.contains(unique))
            #expect(try await connection.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
            #expect(try await connection.nameOwner("org.audiosessiond.Nobody") == nil)
            #expect(try await connection.unixProcessID(of: unique) == UInt32(getpid()))
            #expect(try await connection.unixUser(of: unique) == getuid())
            let missing = await #expect(throws: DBusError.self) {
                try await connection.call(
                    destination: "org.audiosessiond.Nobody",
                    path: "/",
                    interface: "org.x",
                    member: "Y"
                )
            }
            #expect(missing == .noSuchName("org.audiosessiond.Nobody"))
            let unknown = await #expect(throws: DBusError.self) {
                try await connection.call(
                    destination: "org.freedesktop.DBus",
                    path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus",
                    member: "NoSuchMethod"
                )
            }
            #expect(unknown?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
            // The private bus activates nothing: feedbackd has a service file on this machine, yet is not started.
            let notActivated = await #expect(throws: DBusError.self) {
                try await connection.call(
                    destination: "org.sigxcpu.Feedback",
                    path: "/org/sigxcpu/Feedback",
                    interface: "org.freedesktop.DBus.Properties",
                    member: "GetAll",
                    arguments: [.string("org.sigxcpu.Feedback")]
                )
            }
            #expect(notActivated == .noSuchName("org.sigxcpu.Feedback"))
        }
    }

    @Test func thePrivateBusLeavesNothingRunning() throws {
        let bus = try PrivateSessionBus.start()
        let pid = try #require(bus.processIdentifier)
        #expect(kill(pid, 0) == 0)
        bus.stop()
        bus.stop()
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(!FileManager.default.fileExists(atPath: bus.directory))
    }

    @Test func connectingToAMissingBusThrows() async throws {
        let error = #expect(throws: DBusError.self) {
            try DBusConnection(.address("unix:path=/nonexistent/audiosessiond/bus"))
        }
        guard case .system = error else {
            Issue.record("expected a system error, got \(String(describing: error))"); return
        }
    }

    @Test func servedObjectAnswersTheLayerItself() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let everything: [DBusValue] = [
                .byte(200), .bool(true), .int16(-3), .uint16(65000), .int32(-70000), .uint32(4_000_000_000),
                .int64(-1 << 40), .uint64(1 << 63), .double(0.25), .string("héllo 'quoted'"),
                .objectPath("/org/mpris/MediaPlayer2"), .signature("a{sv}"), .variant(.variant(.string("inner"))),
                .array(elementSignature: "s", []), .strings(["a", "b"]),
                .properties(["PlaybackStatus": .string("Playing"), "Volume": .double(0.5)]),
                .dictionary(keySignature: "u", valueSignature: "as", []),
                .structure([.string("x"), .array(elementSignature: "(ii)", [.structure([.int32(1), .int32(2)])])]),
            ]
            let echoed = try await client.call(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                member: "Echo",
                arguments: everything
            )
            #expect(echoed == everything)
            let caller = try await client.call(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                member: "Caller",
                replySignature: "su"
            )
            #expect(caller == [.string(try await client.uniqueName()), .uint32(getuid())])
            let refused = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Fail"
                )
            }
            #expect(refused == .remote(name: "org.audiosessiond.Error.Refused", message: "refused on purpose"))
            let xml = try await client.call(
                destination: TestService.name,
                path: TestService.path,
                interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect",
                replySignature: "s"
            )
            #expect(xml.first?.string?.contains("<property name=\"Volume\"") == true)
            let unknown = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Nope"
                )
            }
            #expect(unknown?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
        }
    }

    @Test func servedObjectAnswersBusctlAndGdbus() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let busctl = try #require(ChildProcess.executable(named: "busctl"), "busctl is not installed (systemd)")
            let output = try await ChildProcess.run(
                busctl,
                [
                    "--address=\(bus.address)", "call", TestService.name, TestService.path, TestService.interface,
                    "Echo", "sas", "hello", "2", "a", "b",
                ],
                environment: ChildProcess.environment([:]),
                timeout: .seconds(30)
            )
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "sas \"hello\" 2 \"a\" \"b\""
            )
            let property = try await ChildProcess.run(
                busctl,
                [
                    "--address=\(bus.address)", "get-property", TestService.name, TestService.path,
                    TestService.interface, "Volume",
                ],
                environment: ChildProcess.environment([:]),
                timeout: .seconds(30)
            )
            #expect(property.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "i 40")
            guard let gdbus = ChildProcess.executable(named: "gdbus") else { return }
            let answer = try await ChildProcess.run(
                gdbus,
                [
                    "call", "--address", bus.address, "--dest", TestService.name, "--object-path", TestService.path,
                    "--method", "\(TestService.interface).Echo", "'hello'", "uint32 7",
                ],
                environment: ChildProcess.environment([:]),
                timeout: .seconds(30)
            )
            #expect(answer.status == 0, "\(answer.standardError)")
            #expect(answer.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "('hello', uint32 7)")
        }
    }

    @Test func propertiesGetSetAllAndChanged() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let volume = try await client.property(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                name: "Volume"
            )
            #expect(volume == .int32(40))
            let all = try await client.allProperties(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface
            )
            #expect(all == ["Volume": .int32(40), "Name": .string("speaker")])
            // The sender as a well-known name: the bus daemon resolves it to the owner.
            let changes = try await client.propertiesChanges(
                sender: TestService.name,
                path: TestService.path,
                interface: TestService.interface
            )
            try await client.setProperty(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                name: "Volume",
                value: .int32(75)
            )
            let change = try await first(changes, "PropertiesChanged")
            #expect(change.interface == TestService.interface)
            #expect(change.changed == ["Volume": .int32(75)])
            #expect(change.sender == (try await client.nameOwner(TestService.name)))
            let after = try await client.property(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                name: "Volume"
            )
            #expect(after == .int32(75))
        }
    }

    @Test func signalsByMatchRule() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let rule = DBusConnection.matchRule([
                "type": "signal", "interface": TestService.interface, "member": "Ringing",
            ])
            let signals = try await client.signals(matching: rule)
            let other = try await client.signals(matching: rule)
            try await service.connection.emitSignal(
                path: TestService.path,
                interface: TestService.interface,
                member: "Ringing",
                arguments: [.string("ring"), .uint32(2)]
            )
            let signal = try await first(signals, "the signal")
            #expect(signal.arguments == [.string("ring"), .uint32(2)])
            #expect(signal.path == TestService.path)
            #expect(signal.member == "Ringing")
            #expect(signal.sender == (try await service.connection.uniqueName()))
            // A second match on the same signal gets it too.
            #expect(try await first(other, "the signal, again").arguments == signal.arguments)
            client.close()
            #expect(try await end(of: signals, "the stream's end after close").isEmpty)
        }
    }

    @Test func aCallThatIsNeverAnsweredTimesOut() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Never",
                    timeout: .seconds(1)
                )
            }
            guard case .timedOut = error else {
                Issue.record("expected a timeout, got \(String(describing: error))"); return
            }
            // The connection still works after a timeout.
            #expect(try await client.nameOwner(TestService.name) != nil)
        }
    }

    @Test func aCancelledCallFailsAtOnceAndItsLateReplyIsDropped() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let pending = Task {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Never",
                    timeout: .seconds(60)
                )
            }
            _ = try await first(service.calls, "the call to arrive") { $0.member == "Never" }
            pending.cancel()
            let result = try await withTimeout(20, "the cancelled call to fail") { await pending.result }
            guard case .failure(let error as DBusError) = result, case .cancelled = error else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
            // The answer comes after all; the connection drops it and goes on.
            service.gate.open()
            let echoed = try await client.call(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                member: "Echo",
                arguments: [.string("after")]
            )
            #expect(echoed == [.string("after")])
        }
    }

    @Test func aNameThatVanishes() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let owner = try #require(try await client.nameOwner(TestService.name))
            let changes = try await client.nameOwnerChanges(for: TestService.name)
            let pending = Task {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Never",
                    timeout: .seconds(60)
                )
            }
            _ = try await first(service.calls, "the call to arrive") { $0.member == "Never" }
            service.connection.close()
            // The call waiting for an answer fails at once: its destination left without answering.
            let result = try await withTimeout(20, "the pending call to fail") { await pending.result }
            guard case .failure(let left as DBusError) = result, left == .noSuchName(TestService.name) else {
                Issue.record("expected noSuchName, got \(result)")
                return
            }
            let change = try await first(changes, "the name's owner change")
            #expect(change.name == TestService.name)
            #expect(change.oldOwner == owner)
            #expect(change.newOwner == nil)
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Echo"
                )
            }
            #expect(error == .noSuchName(TestService.name))
        }
    }

    @Test func aReplyOfTheWrongSignatureIsATypedError() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            defer { client.close() }
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "WrongType",
                    replySignature: "s"
                )
            }
            #expect(
                error
                    == .unexpectedSignature(
                        operation: "\(TestService.interface).WrongType on \(TestService.name) \(TestService.path)",
                        expected: "s",
                        actual: "i"
                    )
            )
            // A Get answered with a bare value instead of a variant: Echo stands in for Get here.
            let notVariant = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Echo",
                    arguments: [.int32(1)],
                    replySignature: "v"
                )
            }
            guard case .unexpectedSignature = notVariant else {
                Issue.record("got \(String(describing: notVariant))"); return
            }
            // A value that does not fit its own array's element type is refused before anything is sent.
            let unfit = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Echo",
                    arguments: [.array(elementSignature: "s", [.int32(1)])]
                )
            }
            guard case .system = unfit else { Issue.record("got \(String(describing: unfit))"); return }
            // A handler whose reply values do not form a message: the caller gets an error, not a timeout.
            let bad = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "BadReply",
                    timeout: .seconds(20)
                )
            }
            #expect(bad?.remoteName == "org.freedesktop.DBus.Error.Failed")
        }
    }

    @Test func closingWithCallsOutstanding() async throws {
        try await withPrivateBus { bus in
            let service = try await TestService(address: bus.address)
            defer { service.close() }
            let client = try DBusConnection(.address(bus.address))
            let signals = try await client.signals(matching: "type='signal',member='Never'")
            let outstanding = Task {
                try await client.call(
                    destination: TestService.name,
                    path: TestService.path,
                    interface: TestService.interface,
                    member: "Never",
                    timeout: .seconds(60)
                )
            }
            _ = try await first(service.calls, "the call to arrive") { $0.member == "Never" }
            client.close()
            let result = try await withTimeout(20, "the outstanding call to fail") { await outstanding.result }
            guard case .failure(let error as DBusError) = result, case .closed = error else {
                Issue.record("expected .closed, got \(result)")
                return
            }
            _ = try await end(of: signals, "the signal stream's end")
            let late = await #expect(throws: DBusError.self) { try await client.listNames() }
            guard case .closed = late else { Issue.record("expected .closed, got \(String(describing: late))"); return }
            client.close()
        }
    }

    @Test func losingTheBusFailsCallsAndEndsStreams() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let service = try await TestService(address: bus.address)
        defer { service.close() }
        let client = try DBusConnection(.address(bus.address))
        defer { client.close() }
        let signals = try await client.nameOwnerChanges()
        let outstanding = Task {
            try await client.call(
                destination: TestService.name,
                path: TestService.path,
                interface: TestService.interface,
                member: "Never",
                timeout: .seconds(60)
            )
        }
        _ = try await first(service.calls, "the call to arrive") { $0.member == "Never" }
        bus.stop()
        let result = try await withTimeout(20, "the outstanding call to fail") { await outstanding.result }
        guard case .failure(let error as DBusError) = result, case .connectionLost = error else {
            Issue.record("expected .connectionLost, got \(result)")
            return
        }
        _ = try await end(of: signals, "the stream's end")
        let late = await #expect(throws: DBusError.self) { try await client.listNames() }
        guard case .connectionLost = late else { Issue.record("got \(String(describing: late))"); return }
    }
}
