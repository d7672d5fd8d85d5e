import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

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
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        guard let names = names(in: folder) else {
            let issue = ConfigurationIssue(
                file: folder,
                location: nil,
                field: "",
                problem: "cannot list the drop-in folder: \(String(cString: strerror(errno)))",
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

    /// The names in `folder` but `.` and `..`, or nil with `errno` set when it cannot be opened or read.
    private static func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else { return errno == 0 ? names : nil }
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}
