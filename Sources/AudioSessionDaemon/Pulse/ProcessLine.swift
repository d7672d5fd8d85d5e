#if canImport(Glibc)
    import Glibc
#endif

/// A process and its ancestors, nearest first, read from /proc: a stream's process is matched against the media
/// players on the bus by it (section 6b; a browser plays from a child of the process that owns its player). It is
/// read when the stream's client connects (`PulseSession`), or else when the stream first appears, on the path
/// from the server's event to the orders that answer it; so each stat file is read with one `read` into a buffer
/// on the stack, not through Foundation's file reading.
enum ProcessLine {
    /// Enough for any real process tree; a longer one (or a loop, which /proc cannot show) is cut there.
    static let deepest = 64

    /// `processID`, its parent, its parent's parent... up to (not including) process 1. Empty for a process not
    /// there (it ended, or is in another PID namespace).
    static func of(_ processID: Int32, proc: String = "/proc") -> [Int32] {
        var line: [Int32] = []
        var current = processID
        while current > 1, line.count < deepest, !line.contains(current),
            let parent = parentID(ofProcess: current, proc: proc)
        {
            line.append(current)
            current = parent
        }
        return line
    }

    /// The parent's ID from `proc/PID/stat`; nil when it cannot be read or understood.
    private static func parentID(ofProcess processID: Int32, proc: String) -> Int32? {
        let descriptor = open("\(proc)/\(processID)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A stat line is a few hundred bytes: the command name is at most 64, the rest numbers.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var count = -1
            repeat { count = read(descriptor, buffer.baseAddress, buffer.count) } while count < 0 && errno == EINTR
            return count > 0 ? parentID(inStat: UnsafeBufferPointer(rebasing: buffer[..<count])) : nil
        }
    }

    /// The parent's ID from a /proc/PID/stat line: `pid (comm) state ppid ...`. The command name may hold
    /// spaces and parentheses, so the fields are counted from the last ')'. Read byte by byte, with no string
    /// made: a new app's stat lines (one per ancestor) are read as it connects, on the sound server's loop.
    static func parentID<Bytes: BidirectionalCollection<UInt8>>(inStat stat: Bytes) -> Int32? {
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var field = 0
        var inField = false
        var parent: Int32 = 0
        for byte in stat[stat.index(after: close)...] {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if inField && field == 2 { return parent }
                inField = false
                continue
            }
            if !inField {
                inField = true
                field += 1
            }
            guard field == 2 else { continue }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Int32(byte - UInt8(ascii: "0"))
            let (shifted, overflow) = parent.multipliedReportingOverflow(by: 10)
            guard !overflow, shifted <= Int32.max - digit else { return nil }
            parent = shifted + digit
        }
        return inField && field == 2 ? parent : nil
    }
}
