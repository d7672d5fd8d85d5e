import FoundationEssentials
import YAMLBackend

#if canImport(Glibc)
    import Glibc
#endif

/// A client of the control socket that may activate during a call (A2) because of who it is, as the kernel
/// says (D8): the program file its process runs and, when given, the user it runs as. The name a client
/// declares in `hello` never grants the exemption: any program can declare any name.
public struct CallExemptClient: Sendable, Equatable, CustomStringConvertible {
    /// The program's file, an absolute path. A client matches when its process runs this very file (the same
    /// file on the same device: a symlink here is followed, a copy elsewhere is another file).
    public var executable: String
    /// Nil: any user the socket lets in.
    public var userID: UInt32?

    public init(executable: String, userID: UInt32? = nil) {
        self.executable = executable
        self.userID = userID
    }

    /// `/usr/bin/orca`, `/usr/bin/orca as user 1000`.
    public var description: String { executable + (userID.map { " as user \($0)" } ?? "") }
}

extension PolicyConfigLoader {
    static let clientKeys = ["executable", "user"]

    /// `callExemptApps`: app names (a scenario's sessions, an unaware app's `application.name`) and, in the
    /// daemon's file (`takesClients`), clients by `{ executable, user }`. A bad item is noted and left out.
    static func parseExemptions(_ node: YAMLNode, _ yaml: StrictYAML, label: String, takesClients: Bool) throws
        -> (names: [String], clients: [CallExemptClient])
    {
        var names: [String] = []
        var clients: [CallExemptClient] = []
        for (index, item) in try yaml.sequence(node, label).enumerated() {
            let itemLabel = yaml.label(label, item: index)
            guard case .mapping = item else {
                if let name = try yaml.recover({ try yaml.string(item, itemLabel) }) { names.append(name) }
                continue
            }
            guard takesClients else {
                try yaml.note(
                    yaml.issue(
                        at: item,
                        itemLabel,
                        "a client by its executable is for the daemon's configuration file",
                        "expected an app name: a scenario's sessions have no process"
                    )
                )
                continue
            }
            if let client = try yaml.recover({ try parseClient(item, yaml, label: itemLabel) }) ?? nil {
                clients.append(client)
            }
        }
        return (names, clients)
    }

    /// `{ executable: /usr/bin/orca, user: alice }`; nil (with issues noted) when a part is wrong, so that a
    /// bad `user` never widens the entry to every user.
    private static func parseClient(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> CallExemptClient? {
        let mapping = try yaml.mapping(node, label, allowedKeys: clientKeys)
        let executable = try yaml.recover {
            try absolutePath(mapping.required("executable"), yaml, label: mapping.label(of: "executable"))
        }
        let user = try mapping.recovered("user") { try userID($0, yaml, label: $1) }
        guard let executable, mapping["user"] == nil || user != nil else { return nil }
        return CallExemptClient(executable: executable, userID: user)
    }

    private static func absolutePath(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> String {
        let path = try yaml.string(node, label)
        guard path.hasPrefix("/") else {
            throw yaml.issue(
                at: node,
                label,
                "'\(path)' is not an absolute path",
                "expected the full path of the program's file, e.g. /usr/bin/gnome-calls"
            )
        }
        return path
    }

    private static let userExpected = "expected a user name of this system or a uid (a whole number)"

    /// A uid as written, or a user name looked up now (at every reload): the kernel reports uids.
    private static func userID(_ node: YAMLNode, _ yaml: StrictYAML, label: String) throws -> UInt32 {
        if node.tag == .int {
            let uid = try yaml.int(node, label, expected: "a uid from 0 to 4294967294")
            guard (0..<Int(UInt32.max)).contains(uid) else {
                throw yaml.issue(at: node, label, "\(uid) is not a uid", "expected a uid from 0 to 4294967294")
            }
            return UInt32(uid)
        }
        let name = try yaml.string(node, label)
        guard let uid = uid(ofUser: name) else {
            throw yaml.issue(at: node, label, "'\(name)' is not a user of this system", userExpected)
        }
        return uid
    }

    private static func uid(ofUser name: String) -> UInt32? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &found) == 0, found != nil else { return nil }
        return entry.pw_uid
    }
}
