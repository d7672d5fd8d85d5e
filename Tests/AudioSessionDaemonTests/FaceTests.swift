import AudioSessionDaemonCore
import Locking
import AudioSessionDaemon
import AudioSessionProtocol
import AudioSessionTestSupport
import DBusBackend
import Foundation
import Logging
import Testing

@testable import AudioSessionCLI

/// The daemon's D-Bus interface on a real private `dbus-daemon`, called with `busctl`, `gdbus` and sd-bus, and
/// checked against what `audiosessionctl` (the control socket) says.
@Suite(.serialized) struct FaceTests {
    @Test func whatTheDaemonIntrospectsIsTheFileInTheRepository() async throws {
        let file = try String(
            contentsOfFile: FaceDaemon.repository + "/docs/dbus/org.audiosessiond.Daemon1.xml",
            encoding: .utf8
        )
        try await FaceDaemon.with { face in
            let connection = try face.connection()
            defer { connection.close() }
            let served = try await connection.call(
                destination: FaceDaemon.name,
                path: FaceDaemon.path,
                interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect",
                replySignature: "s"
            )
            #expect(served.first?.string == file)
            // And busctl reads it as the members it declares.
            let members = try await face.busctl(["introspect", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface])
            #expect(members.status == 0, "\(members.standardError)")
            for member in ["SilentSwitch", "ScreenLocked", "Outputs", "SelectedOutput", "Sessions", "SetSilentSwitch",
                "SelectOutput", "RecentDecisions"]
            {
                #expect(members.standardOutput.contains(".\(member) "), "\(member) in \(members.standardOutput)")
            }
        }
    }

    @Test func theSwitchSetOverDBusIsTheSwitchOfStatusAndTheOtherWayRound() async throws {
        try await FaceDaemon.with { face in
            let connection = try face.connection()
            defer { connection.close() }
            let changes = try await connection.propertiesChanges(
                sender: FaceDaemon.name,
                path: FaceDaemon.path,
                interface: FaceDaemon.interface
            )
            // D-Bus → the socket.
            let set = try await face.busctl(
                ["set-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch", "s", "silent"]
            )
            #expect(set.status == 0, "\(set.standardError)")
            let toSilent = try await firstChange(changes, "SilentSwitch silent") { $0["SilentSwitch"] != nil }
            #expect(toSilent.changed["SilentSwitch"] == .string("silent"))
            #expect(try await face.daemon.status().silentSwitch == .silent)
            // The socket → D-Bus: a signal, and the property read back.
            let ctl = try await onThread { face.daemon.ctl(["switch", "ring"]) }
            #expect(ctl.status == 0, "\(ctl.errors)")
            let toRing = try await firstChange(changes, "SilentSwitch ring") { $0["SilentSwitch"] != nil }
            #expect(toRing.changed["SilentSwitch"] == .string("ring"))
            let read = try await face.busctl(["get-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch"])
            #expect(read.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"ring\"")
            // The method, as gdbus calls it; the lock is a property too.
            let method = try await face.gdbus(
                "call",
                ["--dest", FaceDaemon.name, "--object-path", FaceDaemon.path, "--method", "\(FaceDaemon.interface).SetSilentSwitch", "silent"]
            )
            #expect(method.status == 0, "\(method.standardError)")
            #expect(try await face.daemon.status().silentSwitch == .silent)
            _ = try await onThread { face.daemon.ctl(["lock"]) }
            let locked = try await firstChange(changes, "ScreenLocked true") { $0["ScreenLocked"] != nil }
            #expect(locked.changed["ScreenLocked"] == .bool(true))
        }
    }

    @Test func anOutputIsSelectedAndABadPortNameIsRefusedWithTheValidNames() async throws {
        try await FaceDaemon.with { face in
            let connection = try face.connection()
            defer { connection.close() }
            let changes = try await connection.propertiesChanges(sender: FaceDaemon.name, path: FaceDaemon.path)
            _ = try await onThread { face.daemon.ctl(["route", "connect", "headphones"]) }
            let outputs = try await firstChange(changes, "Outputs with headphones") {
                $0["Outputs"]?.stringArray?.contains("headphones") == true
            }
            #expect(outputs.changed["Outputs"]?.stringArray?.contains("headphones") == true)
            let select = try await face.busctl(["call", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SelectOutput", "s", "headphones"])
            #expect(select.status == 0, "\(select.standardError)")
            #expect(try await face.daemon.status().selectedOutput == .headphones)
            let selected = try await connection.property(
                destination: FaceDaemon.name, path: FaceDaemon.path, interface: FaceDaemon.interface, name: "SelectedOutput"
            )
            #expect(selected == .string("headphones"))
            // Not a port at all: the daemon's own error, with the names it takes.
            let refused = await #expect(throws: DBusError.self) {
                try await connection.call(
                    destination: FaceDaemon.name, path: FaceDaemon.path, interface: FaceDaemon.interface,
                    member: "SelectOutput", arguments: [.string("hifi")]
                )
            }
            guard case .remote(let name, let message)? = refused else { return }
            #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(message.contains("'hifi' is not an output port; expected one of: speaker, receiver, headphones"), "\(message)")
            // A port that is not there: R3's refusal.
            let absent = try await face.busctl(["call", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SelectOutput", "s", "hdmi"])
            #expect(absent.status != 0)
            #expect(absent.standardError.contains("hdmi is not an available output"), "\(absent.standardError)")
        }
    }

    @Test func sessionsAreListedWithTheirCategoryStateAndVerdict() async throws {
        try await FaceDaemon.with { face in
            let connection = try face.connection()
            defer { connection.close() }
            let music = try await onThread {
                let music = try face.daemon.client("music", .playback)
                try music.startStream(1)
                return HeldClient(music)
            }
            defer { music.close() }
            let sessions = try await connection.property(
                destination: FaceDaemon.name, path: FaceDaemon.path, interface: FaceDaemon.interface, name: "Sessions"
            )
            let rows = try #require(sessions.elements).compactMap(\.fields)
            let row = try #require(rows.first { $0[1] == .string("music") }, "\(sessions)")
            #expect(Array(row[2...4]) == [.string("playback"), .string("active"), .string("audible")])
            #expect(row[5].string?.contains("(") == true, "a reason with its rule: \(row[5])")
            // gdbus reads the whole interface.
            let all = try await face.gdbus(
                "call",
                ["--dest", FaceDaemon.name, "--object-path", FaceDaemon.path, "--method",
                 "org.freedesktop.DBus.Properties.GetAll", FaceDaemon.interface]
            )
            #expect(all.status == 0, "\(all.standardError)")
            #expect(all.standardOutput.contains("'music', 'playback', 'active', 'audible'"), "\(all.standardOutput)")
        }
    }

    @Test func theLastDecisionsComeWithTheirReasons() async throws {
        try await FaceDaemon.with { face in
            let connection = try face.connection()
            defer { connection.close() }
            let (music, phone) = try await onThread {
                let music = try face.daemon.client("music", .playback)
                try music.startStream(1)
                let phone = try face.daemon.client("phone", .playAndRecord)
                return (HeldClient(music), HeldClient(phone))
            }
            defer {
                music.close()
                phone.close()
            }
            let reply = try await connection.call(
                destination: FaceDaemon.name, path: FaceDaemon.path, interface: FaceDaemon.interface,
                member: "RecentDecisions", arguments: [.uint32(3)], replySignature: "a(ts)"
            )
            let decisions = try #require(reply.first?.elements).compactMap(\.fields)
            #expect(decisions.count == 3)
            let texts = decisions.compactMap { $0[1].string }
            #expect(texts.contains { $0.contains("music") && $0.contains("interrupted by phone (A4)") }, "\(texts)")
            let numbers = decisions.compactMap { $0[0].integer }
            #expect(numbers == numbers.sorted() && Set(numbers).count == 3, "\(numbers)")
            // The same decisions as the socket's `decisions` request.
            let asked = Request(.decisions(count: 3))
            let viaSocket = try await onThread {
                try ControlConnection(path: face.daemon.socketPath, readTimeout: .seconds(60)).result(asked).decisions
            }
            #expect(viaSocket?.map(\.text) == texts)
            // None: refused with the reason.
            let none = try await face.busctl(["call", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "RecentDecisions", "u", "0"])
            #expect(none.status != 0)
            #expect(none.standardError.contains("count: expected a whole number from 1"), "\(none.standardError)")
        }
    }

    @Test(.enabled(if: getuid() == 0, "setpriv needs root to become another user"))
    func anotherUserIsRefusedAndTheDaemonServesOn() async throws {
        try await FaceDaemon.with(everyUser: true) { face in
            let set = ["set-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch", "s", "silent"]
            let refused = try await face.busctl(set, asNobody: true)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("Access denied") || refused.standardError.contains("only user"), "\(refused.standardError)")
            let read = try await face.busctl(["get-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch"], asNobody: true)
            #expect(read.status != 0, "reading is refused too: \(read.standardOutput)")
            #expect(try await face.daemon.status().silentSwitch == .ring)
            // The daemon's own user still may.
            let allowed = try await face.busctl(set)
            #expect(allowed.status == 0, "\(allowed.standardError)")
            #expect(try await face.daemon.status().silentSwitch == .silent)
        }
    }

    @Test func malformedCallsGetErrorsAndTheDaemonServesOn() async throws {
        try await FaceDaemon.with { face in
            let daemon = [FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface]
            let cases: [(arguments: [String], error: String)] = [
                (["call"] + daemon + ["SetSilentSwitch", "i", "3"], "SetSilentSwitch takes (s): position; got (i)"),
                (["call"] + daemon + ["SetSilentSwitch", "ss", "ring", "silent"], "got (ss)"),
                (["call"] + daemon + ["SetSilentSwitch", "s", "loud"], "position: 'loud' is not one of: ring, silent"),
                (["call"] + daemon + ["Explode"], "no method org.audiosessiond.Daemon1.Explode"),
                (["get-property"] + daemon + ["Volume"], "no property Volume in org.audiosessiond.Daemon1"),
                (["set-property"] + daemon + ["ScreenLocked", "b", "true"], "ScreenLocked is read-only"),
                (["set-property"] + daemon + ["SilentSwitch", "i", "1"], "SilentSwitch is a string"),
                (["call"] + daemon + ["RecentDecisions", "s", "ten"], "RecentDecisions takes (u): count; got (s)"),
                (["call"] + daemon + ["SelectOutput", "a{sv}", "1", "port", "s", "speaker"], "SelectOutput takes (s): port; got (a{sv})"),
                (["call"] + daemon + ["SelectOutput"], "SelectOutput takes (s): port; got none"),
                (["call", FaceDaemon.name, FaceDaemon.path, "org.audiosessiond.Nothing", "SetSilentSwitch", "s", "ring"],
                 "no interface org.audiosessiond.Nothing"),
                (["call", FaceDaemon.name, FaceDaemon.path, "org.freedesktop.DBus.Properties", "Get", "ss",
                  "org.audiosessiond.Nothing", "SilentSwitch"], "no interface org.audiosessiond.Nothing"),
            ]
            for (arguments, error) in cases {
                let answer = try await face.busctl(arguments)
                #expect(answer.status != 0, "\(arguments)")
                #expect(answer.standardError.contains(error), "\(arguments): \(answer.standardError)")
            }
            #expect(try await face.daemon.status().silentSwitch == .ring)
            let still = try await face.busctl(["get-property"] + daemon + ["SilentSwitch"])
            #expect(still.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"ring\"")
        }
    }

    @Test func aSecondDaemonOnTheSameBusSaysTheNameIsTakenAndRunsOn() async throws {
        try await FaceDaemon.with { face in
            let kept = KeptLog()
            let logger = Logger(label: "audiosessiond-test") { _ in kept }
            let directory = FileManager.default.temporaryDirectory.path + "/face-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
            let second = Task {
                try await Daemon.run(
                    DaemonOptions(
                        socketPath: directory + "/control",
                        soundServer: false,
                        onReady: { readyContinuation.yield() },
                        dbusFace: .address(face.bus.address)
                    ),
                    logger: logger
                )
            }
            defer { second.cancel() }
            for await _ in ready { break }
            try await within(20, "the second daemon to say the name is taken") {
                while !kept.all.contains(where: { $0.contains("belongs to another program") }) {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            // The first still answers, and the second's socket works.
            let read = try await face.busctl(["get-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch"])
            #expect(read.status == 0, "\(read.standardError)")
            let status = try await onThread { InProcessDaemon(socketPath: directory + "/control").ctl(["status"]) }
            #expect(status.status == 0, "\(status.errors)")
            second.cancel()
            _ = await second.result
            #expect(kept.all.filter { $0.contains("no D-Bus interface") }.count == 1, "\(kept.all)")
        }
    }

    @Test func theBuiltDaemonServesOnTheBusItIsGivenAndLeavesItWhenStopped() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let observer = try DBusConnection(.address(bus.address))
        defer { observer.close() }
        let owners = try await observer.nameOwnerChanges(for: FaceDaemon.name)
        let folder = FileManager.default.temporaryDirectory.path + "/face-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: LiveDaemon.daemonPath)
        daemon.arguments = [
            "--no-sound-server", "--no-alsa", "--socket", folder + "/run/control", "--state-dir", folder + "/state",
            "--session-bus", "none", "--system-bus", "none", "--dbus-interface", bus.address,
        ]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = try ChildProcess.newFile(folder + "/daemon.log")
        try ChildProcess.launch(daemon)
        defer { daemon.stop() }
        let log = { (try? String(contentsOfFile: folder + "/daemon.log", encoding: .utf8)) ?? "" }
        try await within(30, "the daemon to own its name") {
            for await change in owners where change.newOwner != nil { return }
            throw FaceTestError("the bus went away")
        }
        let read = try await onThread {
            try ChildProcess.run(
                try FaceDaemon.tool("busctl"),
                ["--address=\(bus.address)", "get-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch"],
                environment: ChildProcess.environment([:]),
                timeout: .seconds(30)
            )
        }
        #expect(read.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"ring\"", "\(read.standardError) \(log())")
        await stopProcess(daemon)
        #expect(daemon.terminationStatus == 0, "\(log())")
        #expect(try await observer.nameOwner(FaceDaemon.name) == nil, "the name left with the daemon")
    }

    @Test func theBusGoingAwayLeavesTheDaemonRunningAndSaysSoOnce() async throws {
        let kept = KeptLog()
        try await FaceDaemon.with(log: kept) { face in
            face.bus.stop()
            try await within(20, "the daemon to say its bus went away") {
                while !kept.all.contains(where: { $0.contains("the D-Bus interface is gone") }) {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let switched = try await onThread { face.daemon.ctl(["switch", "silent"]) }
            #expect(switched.status == 0, "\(switched.errors)")
            #expect(try await face.daemon.status().silentSwitch == .silent)
            let gone = kept.all.filter { $0.contains("the D-Bus interface is gone") }
            #expect(gone.count == 1, "\(kept.all)")
        }
        #expect(kept.all.filter { $0.contains("the D-Bus interface is gone") }.count == 1, "not when it stops: \(kept.all)")
    }

    /// The lines a daemon without the bus of its D-Bus interface logged, after a switch set through its socket.
    private func logOfADaemonWithoutItsBus(_ face: DBusFaceBus, buses: PlatformBuses = PlatformBuses()) async throws
        -> [String]
    {
        let kept = KeptLog()
        let logger = Logger(label: "audiosessiond-test") { _ in kept }
        let directory = FileManager.default.temporaryDirectory.path + "/face-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control"
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let daemon = Task {
            try await Daemon.run(
                DaemonOptions(
                    socketPath: path,
                    soundServer: false,
                    onReady: { readyContinuation.yield() },
                    buses: buses,
                    dbusFace: face
                ),
                logger: logger
            )
        }
        defer { daemon.cancel() }
        for await _ in ready { break }
        let client = InProcessDaemon(socketPath: path)
        let switched = try await onThread { client.ctl(["switch", "silent"]) }
        #expect(switched.status == 0, "\(switched.errors)")
        #expect(try await client.status().silentSwitch == .silent)
        daemon.cancel()
        _ = await daemon.result
        return kept.all
    }

    @Test func withoutABusTheDaemonRunsAsBeforeAndSaysSoOnce() async throws {
        // A bus named that is not there.
        let missing = try await logOfADaemonWithoutItsBus(.address("unix:path=/nonexistent/audiosessiond-bus"))
        let said = missing.filter { $0.contains("no D-Bus interface") }
        #expect(said.count == 1, "\(missing)")
        #expect(said.first?.contains("the daemon runs as before") == true)
        // No session bus at all: the one line that says so names the interface too.
        let none = try await logOfADaemonWithoutItsBus(.session)
        let noSession = none.filter { $0.contains("no session bus") }
        #expect(noSession.count == 1, "\(none)")
        #expect(noSession.first?.contains("the D-Bus interface is not served") == true, "\(none)")
        #expect(!none.contains { $0.contains("no D-Bus interface") }, "\(none)")
    }
}
