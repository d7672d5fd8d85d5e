import Foundation

/// Drop-in files: a package marks its own program exempt from A2 (a dialer, a screen reader) with a file of
/// its own next to the configuration, instead of editing the administrator's file (D8).
extension DaemonConfigurationLoader {
    /// The keys a drop-in file may set: only the exemption, the one thing a package has to add.
    public static let dropInKeys = ["callExemptApps"]

    /// `policy.yaml.d` for `policy.yaml`.
    public static func dropInFolder(of path: String) -> String { path + ".d" }

    /// Adds the `callExemptApps` of each `*.yaml` file of `path.d`, in name order, to `configuration`. No folder
    /// is no drop-in; a folder that cannot be listed, or a file with an issue, refuses the configuration as a
    /// bad main file does, naming that file.
    static func addDropIns(of path: String, to configuration: inout DaemonConfiguration) throws {
        let folder = dropInFolder(of: path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            let issue = ConfigurationIssue(
                file: folder,
                location: nil,
                field: "",
                problem: "cannot list the drop-in folder: \(error.localizedDescription)",
                expectation: ""
            )
            throw ConfigurationError(code: .unreadableFile, file: folder, issues: [issue])
        }
        let expected = "a mapping of \(dropInKeys.joined(separator: ", ")) (or {})"
        for name in names.filter({ $0.hasSuffix(".yaml") }).sorted() {
            let exempt = try ConfigurationFile.load(path: folder + "/" + name, keys: dropInKeys, expected: expected) {
                mapping,
                yaml in
                try mapping.recovered("callExemptApps") {
                    try PolicyConfigLoader.parseExemptions($0, yaml, label: $1, takesClients: true)
                }
            }
            configuration.policy.callExemptApps += exempt?.names ?? []
            configuration.callExemptClients += exempt?.clients ?? []
        }
    }
}
