import Foundation

/// A process and its ancestors, nearest first, read from /proc: a stream's process is matched against the media
/// players on the bus by it (section 6b; a browser plays from a child of the process that owns its player).
enum ProcessLine {
    /// Enough for any real process tree; a longer one (or a loop, which /proc cannot show) is cut there.
    static let deepest = 64

    /// `processID`, its parent, its parent's parent... up to (not including) process 1. Empty for a process not
    /// there (it ended, or is in another PID namespace).
    static func of(_ processID: Int32, proc: String = "/proc") -> [Int32] {
        var line: [Int32] = []
        var current = processID
        while current > 1, line.count < deepest, !line.contains(current) {
            guard let stat = try? String(contentsOfFile: "\(proc)/\(current)/stat", encoding: .utf8),
                let parent = parentID(inStat: stat)
            else { break }
            line.append(current)
            current = parent
        }
        return line
    }

    /// The parent's ID from a /proc/PID/stat line: `pid (comm) state ppid ...`. The command name may hold
    /// spaces and parentheses, so the fields are counted from the last ')'.
    static func parentID(inStat stat: String) -> Int32? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count >= 2 else { return nil }
        return Int32(fields[1])
    }
}
