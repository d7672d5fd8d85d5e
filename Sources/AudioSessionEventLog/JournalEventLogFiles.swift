import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The event log's files as the daemon leaves them (its `JournalEventLog` writes them): one JSON record per line
/// in `events.jsonl` in the state directory, and the older half in `events.1.jsonl`. Reading them needs nothing
/// of the daemon, so that `audiosessionctl journal export` reads a log without it.
public enum JournalEventLogFiles {
    /// The file records are appended to.
    public static let fileName = "events.jsonl"
    /// The file before the current one, replaced at each rotation.
    public static let olderFileName = "events.1.jsonl"

    /// Where the daemon keeps its state, the event log among it, when not told otherwise:
    /// `$STATE_DIRECTORY` (what systemd's `StateDirectory=` sets) when set, else
    /// `/var/lib/audiosessiond` for a system-wide daemon (running as root), else
    /// `$XDG_STATE_HOME/audiosessiond`, else `~/.local/state/audiosessiond`.
    public static func defaultStateDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = getuid()
    ) -> String {
        if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty {
            return String(systemd)
        }
        if userID == 0 { return "/var/lib/audiosessiond" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/audiosessiond" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeDirectory(of: userID)
        return home + "/.local/state/audiosessiond"
    }

    /// The user's home as the password database has it (`HOME` unset, as under some service managers).
    private static func homeDirectory(of userID: UInt32) -> String {
        guard let entry = getpwuid(userID), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }

    /// The records of the log in `directory`, oldest first; lines that cannot be read are reported to
    /// `problems` (file and line) and skipped.
    static func read(directory: String, problems: inout [String]) -> [JournalRecord] {
        var records: [JournalRecord] = []
        let decoder = JSONDecoder()
        for name in [olderFileName, fileName] {
            let file = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .enumerated()
            where !line.isEmpty {
                do {
                    records.append(try decoder.decode(JournalRecord.self, from: Data(line)))
                } catch let error as DecodingError {
                    problems.append("\(file):\(number + 1): \(describe(error, size: line.count)); skipped")
                } catch {
                    problems.append("\(file):\(number + 1): \(error); skipped")
                }
            }
        }
        return records
    }

    /// What was wrong with a file's JSON, in words (the daemon's state files say it in the same words).
    package static func describe(_ error: DecodingError, size: Int) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return size == 0 ? "the file is empty" : "not valid JSON (truncated or garbage, \(size) bytes)"
            }
            return "\(at(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(at(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "\(at(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(at(context.codingPath)): expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }
}
