import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionEventLog
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario
import Testing

@testable import AudioSessionDaemon

/// D8 in the journal: a scenario knows A2's exemption by name only, so the export names the sessions the daemon
/// found exempt by what they run, and leaves out a listed name whose client was not; the replay then agrees.
@Suite struct CallExemptionExportTests {
    @Test func theExportListsWhomTheDaemonFoundExemptAndTheReplayAgrees() throws {
        var driver = CoreDriver(config: PolicyConfig(callExemptApps: ["orca"]))
        driver.core.callExemptClients = [CallExemptClient(executable: "/opt/reader/bin/reader")]
        // The configured file is file 7 of device 1; the core asks for it when a client says hello.
        driver.core.fileIdentity = { $0 == "/opt/reader/bin/reader" ? FileIdentity(device: 1, inode: 7) : nil }
        let running = { (inode: UInt64) in ExecutableFile(path: "/x", file: FileIdentity(device: 1, inode: inode)) }
        driver.input(.sound(.serverConnected))
        driver.input(.sound(.portAvailable(.speaker)), after: 1)
        driver.input(.sound(.inventoryTaken), after: 1)
        let clients = [("phone", 50), ("orca", 99), ("reader", 7)].enumerated().map { index, app in
            let client = ClientID(rawValue: index + 1)
            let peer = ClientPeer(
                processID: Int32(10 + index),
                userID: CoreDriver.owner,
                processName: app.0,
                executable: running(UInt64(app.1))
            )
            driver.input(.clientConnected(client, peer))
            driver.input(
                .request(
                    client,
                    CoreDriver.request(.hello(app: app.0, call: app.0 == "phone"))
                )
            )
            driver.input(
                .request(
                    client,
                    CoreDriver.request(.setCategory(app.0 == "phone" ? .playAndRecord : .playback))
                )
            )
            return client
        }
        for client in clients { driver.input(.request(client, CoreDriver.request(.activate)), after: 100) }
        #expect(driver.core.engine.snapshot(of: SessionID(3))?.state == .active, "reader, by its file")
        #expect(driver.core.engine.snapshot(of: SessionID(2))?.state != .active, "orca, by its name only")

        let export = try JournalExport.scenario(from: driver.records)
        #expect(export.yaml.contains("callExemptApps: [\"reader\"]"), "\(export.yaml)")
        let result = ScenarioRunner.run(try ScenarioLoader.parse(yaml: export.yaml, file: "export.yaml"))
        #expect(result.passed, "\(result.failures.map(\.description).joined(separator: "\n"))\n\(export.yaml)")
    }
}
