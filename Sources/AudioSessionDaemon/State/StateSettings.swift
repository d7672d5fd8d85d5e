import AudioSessionPolicy
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The user's settings the daemon keeps across restarts (`settings.json`): the Ring/Silent switch, the
/// screen lock and the output the user picked (R3).
///
/// - The switch is the user's and stands until they flip it: kept across restarts and reboots.
/// - The screen lock is a fact of the running system, told by whoever locks the screen: it is kept with the
///   boot it was told in (`/proc/sys/kernel/random/boot_id`), so a daemon that restarts or crashes comes back
///   locked if the screen was, but a reboot starts unlocked (the locker tells the daemon again).
/// - The selected output is kept as R3 keeps it: until the next port connect (a real one, not the daemon
///   finding the devices again after a restart) or its own disconnect.
struct StateSettings: StateFileContent, Equatable {
    static let formatVersion = 1
    static let fileName = "settings.json"

    var version = Self.formatVersion
    var silentSwitch: SilentSwitch = .ring
    var screenLocked = false
    /// The boot `screenLocked` was told in.
    var bootID: String?
    var selectedOutput: AudioSessionPolicy.Port?
    /// A `selectedOutput` in the file that is not an output port (edited by hand, or a port of another version):
    /// the selection is dropped and reported, the rest of the settings kept. Not written.
    var refusedSelection: String?

    private enum CodingKeys: String, CodingKey {
        case version, silentSwitch, screenLocked, bootID, selectedOutput
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        silentSwitch = try container.decode(SilentSwitch.self, forKey: .silentSwitch)
        screenLocked = try container.decode(Bool.self, forKey: .screenLocked)
        bootID = try container.decodeIfPresent(String.self, forKey: .bootID)
        if let name = try container.decodeIfPresent(String.self, forKey: .selectedOutput) {
            if let port = AudioSessionPolicy.Port(rawValue: name), port.isOutput {
                selectedOutput = port
            } else {
                refusedSelection = name
            }
        }
    }

    /// The screen lock to start with: what was kept, if it was kept in this boot.
    func screenLockedNow(bootID current: String?) -> Bool {
        screenLocked && bootID != nil && bootID == current
    }

    static func load(from directory: StateDirectory?, logger: Logger) -> StateSettings? {
        guard let directory else { return nil }
        let path = directory.file(fileName)
        var settings = StateFiles.loadContent(Self.self, from: path, logger: logger)
        if let name = settings?.refusedSelection {
            let outputs = AudioSessionPolicy.Port.allCases.filter(\.isOutput).map(\.rawValue).joined(separator: ", ")
            logger.error(
                "state file \(path): selectedOutput: '\(name)' is not an output port (expected one of: \(outputs)); no output selected, the other settings kept"
            )
            settings?.refusedSelection = nil
        }
        return settings
    }

    /// This boot's identity, nil where the kernel does not say.
    static var currentBootID: String? {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingWhitespace
    }
}
