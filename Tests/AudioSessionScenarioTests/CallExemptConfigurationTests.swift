import AudioSessionConfiguration
import AudioSessionPolicy
import Foundation
import Testing

/// D8: `callExemptApps` in the daemon's file names clients by executable (and user); names stay, for unaware
/// apps and scenarios. A wrong entry is an error at its line and column, and never widens what is exempt.
@Suite struct CallExemptConfigurationTests {
    @Test func executableEntriesAreReadWithTheirUserAndNamesStayNames() throws {
        let configuration = try DaemonConfigurationLoader.parse(
            yaml: """
                callExemptApps:
                  - orca
                  - executable: /usr/bin/gnome-calls
                  - { executable: /usr/libexec/reader, user: root }
                  - { executable: /opt/dialer/bin/dialer, user: 1000 }

                """,
            file: "daemon.yaml"
        )
        #expect(configuration.policy.callExemptApps == ["orca"])
        #expect(
            configuration.callExemptClients == [
                CallExemptClient(executable: "/usr/bin/gnome-calls"),
                CallExemptClient(executable: "/usr/libexec/reader", userID: 0),
                CallExemptClient(executable: "/opt/dialer/bin/dialer", userID: 1000),
            ]
        )
    }

    @Test func aBadEntryIsAnErrorAtItsLineAndColumnSayingWhatToWrite() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfigurationLoader.parse(
                yaml: """
                    callExemptApps:
                      - executable: gnome-calls
                      - { executable: /usr/bin/orca, user: no-such-user-d8 }
                      - { user: root }
                      - { executable: /usr/bin/orca, usr: 0 }
                      - { executable: /usr/bin/orca, user: -1 }

                    """,
                file: "daemon.yaml"
            )
        }
        #expect(
            error.issues.map(\.description) == [
                "daemon.yaml:2:17: callExemptApps[1].executable: 'gnome-calls' is not an absolute path; expected the full path of the program's file, e.g. /usr/bin/gnome-calls",
                "daemon.yaml:3:40: callExemptApps[2].user: 'no-such-user-d8' is not a user of this system; expected a user name of this system or a uid (a whole number)",
                "daemon.yaml:4:5: callExemptApps[3].executable: missing; it is required",
                "daemon.yaml:5:34: callExemptApps[4].usr: unknown key; did you mean 'user'? expected one of: executable, user",
                "daemon.yaml:6:40: callExemptApps[5].user: -1 is not a uid; expected a uid from 0 to 4294967294",
            ]
        )
    }

    /// A scenario's sessions are names without a process: an executable there is an error, not ignored.
    @Test func aScenarioOrAPolicyOnlyFileTakesNamesOnly() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try PolicyConfigLoader.parse(yaml: "callExemptApps: [ { executable: /usr/bin/orca } ]\n", file: "p.yaml")
        }
        #expect(
            error.issues.map(\.description) == [
                "p.yaml:1:19: callExemptApps[1]: a client by its executable is for the daemon's configuration file; expected an app name: a scenario's sessions have no process"
            ]
        )
    }

    /// A package's drop-in file (`policy.yaml.d/*.yaml`, in name order) adds to `callExemptApps` and may set
    /// nothing else; its errors name it.
    @Test func dropInFilesAddExemptionsAndNothingElse() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/dropin-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder + "/policy.yaml.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let write = { (text: String, name: String) in
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        try write("duckLevel: 0.5\ncallExemptApps: [orca]\n", "policy.yaml")
        try write("callExemptApps:\n  - executable: /usr/bin/orca\n", "policy.yaml.d/60-reader.yaml")
        try write("callExemptApps: [ { executable: /usr/bin/gnome-calls } ]\n", "policy.yaml.d/50-dialer.yaml")
        try write("callExemptApps: [ { executable: /usr/bin/ignored } ]\n", "policy.yaml.d/README")
        let configuration = try DaemonConfigurationLoader.load(path: folder + "/policy.yaml")
        #expect(configuration.policy.duckLevel == 0.5)
        #expect(configuration.policy.callExemptApps == ["orca"])
        #expect(configuration.callExemptClients.map(\.executable) == ["/usr/bin/gnome-calls", "/usr/bin/orca"])

        try write("duckLevel: 0.1\ncallExemptApps: [ { executable: dialer } ]\n", "policy.yaml.d/70-bad.yaml")
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfigurationLoader.load(path: folder + "/policy.yaml")
        }
        let bad = folder + "/policy.yaml.d/70-bad.yaml"
        #expect(
            error.issues.map(\.description) == [
                "\(bad):1:1: duckLevel: unknown key; expected one of: callExemptApps",
                "\(bad):2:33: callExemptApps[1].executable: 'dialer' is not an absolute path; expected the full path of the program's file, e.g. /usr/bin/gnome-calls",
            ]
        )
    }
}
