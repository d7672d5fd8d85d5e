import AudioSessionDaemon
import AudioSessionTestSupport
import DBusBackend
import Foundation
import Locking
import Logging
import Testing

/// The bus policy `make install` puts in dbus-1/system.d (Config/dbus/org.audiosessiond.Daemon1.conf), on a
/// private bus that runs with this machine's own system bus policy (/usr/share/dbus-1/system.conf, which lets no
/// one own a name no policy file grants): the daemon of the whole machine serves its interface there
/// (docs/DBUS.md, "Which bus"). The tests run as root, one of the two users the file lets own the name; the
/// other, the system user audiosessiond, is made by the sysusers.d file, which scripts/verify-units.sh checks.
@Suite(.timeLimit(.minutes(3)))
struct SystemBusPolicyTests {
    static let shipped = FaceDaemon.repository + "/Config/dbus/org.audiosessiond.Daemon1.conf"

    @Test func withTheShippedPolicyTheDaemonOwnsItsNameAndAnswersItsUserAndRefusesOthersItself() async throws {
        let policies = try PolicyFolder(with: [Self.shipped])
        defer { policies.remove() }
        let bus = try await PrivateSessionBus.startWithMachineSystemPolicy(including: policies.path)
        defer { bus.stop() }
        try await FaceDaemon.with(on: bus) { face in
            let root = try await face.busctl(["get-property", FaceDaemon.name, FaceDaemon.path, FaceDaemon.interface, "SilentSwitch"])
            #expect(root.status == 0, "\(root.standardError) \(bus.log)")
            #expect(root.standardOutput.contains("\"ring\""), "\(root.standardOutput)")
            // Another user's call reaches the daemon (the policy lets anyone send to it) and the daemon refuses
            // it, in its own words; the bus's refusal would say "Rejected send message".
            // (gdbus prints the error's message; busctl only "Access denied".)
            let nobody = try await FaceDaemon.run(
                [try FaceDaemon.tool("setpriv").path, "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                 try FaceDaemon.tool("gdbus").path, "call", "--address", bus.address, "--dest", FaceDaemon.name,
                 "--object-path", FaceDaemon.path, "--method", "org.freedesktop.DBus.Properties.Get",
                 FaceDaemon.interface, "SilentSwitch"])
            #expect(nobody.status != 0)
            #expect(nobody.standardError.contains("may use org.audiosessiond.Daemon1"), "\(nobody.standardError)")
        }
    }

    @Test func withoutItTheBusRefusesTheNameAndTheDaemonSaysWhatToInstallAndRunsOn() async throws {
        let policies = try PolicyFolder(with: [])
        defer { policies.remove() }
        let bus = try await PrivateSessionBus.startWithMachineSystemPolicy(including: policies.path)
        defer { bus.stop() }
        let kept = KeptLog()
        var logger = Logger(label: "audiosessiond-test") { _ in kept }
        logger.logLevel = .info
        let directory = FileManager.default.temporaryDirectory.path + "/sysbus-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control"
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let daemon = Task { [logger] in
            try await Daemon.run(
                DaemonOptions(socketPath: path, soundServer: false, onReady: { readyContinuation.yield() }, dbusFace: .address(bus.address)),
                logger: logger
            )
        }
        defer { daemon.cancel() }
        for await _ in ready { break }
        let refusal = "the bus's policy does not let"
        try await within(30, "the daemon to say the bus refused its name") {
            while !kept.all.contains(where: { $0.contains(refusal) }) { try await Task.sleep(for: .milliseconds(50)) }
        }
        let line = try #require(kept.all.first { $0.contains(refusal) })
        #expect(line.contains("org.audiosessiond.Daemon1.conf"), "\(line)")
        // It runs on: its socket answers.
        let status = try await InProcessDaemon(socketPath: path).status()
        #expect(status.silentSwitch == .ring)
        let observer = try DBusConnection(.address(bus.address))
        defer { observer.close() }
        #expect(try await observer.nameOwner(FaceDaemon.name) == nil)
    }
}

/// A folder of bus policy files, as dbus-1/system.d is.
private struct PolicyFolder {
    let path: String

    init(with files: [String]) throws {
        path = FileManager.default.temporaryDirectory.path + "/policies-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(atPath: file, toPath: path + "/" + URL(fileURLWithPath: file).lastPathComponent)
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
