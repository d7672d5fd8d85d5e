#if canImport(Glibc)
    import Glibc
#endif

/// What the daemon reads of a process's /proc/PID/stat: its parent, and when it started (in clock ticks since
/// boot; nil when the line ends before it), which tells the process from a later one given the same ID.
struct ProcessStat: Equatable {
    var parent: Int32
    var start: UInt64?
}

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
        of(processID) { stat(ofProcess: $0, proc: proc) }
    }

    /// The same, each stat read by `readStat`; `first` is `processID`'s when it was read already.
    static func of(_ processID: Int32, first: ProcessStat? = nil, readStat: (Int32) -> ProcessStat?) -> [Int32] {
        var line: [Int32] = []
        var current = processID
        var stat = first
        while current > 1, line.count < deepest, !line.contains(current),
            let parent = (stat ?? readStat(current))?.parent
        {
            line.append(current)
            current = parent
            stat = nil
        }
        return line
    }

    /// A process's stat from `proc/PID/stat`; nil when it cannot be read or understood.
    static func stat(ofProcess processID: Int32, proc: String = "/proc") -> ProcessStat? {
        let descriptor = open("\(proc)/\(processID)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A stat line is a few hundred bytes: the command name is at most 64, the rest numbers.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var count = -1
            repeat { count = read(descriptor, buffer.baseAddress, buffer.count) } while count < 0 && errno == EINTR
            return count > 0 ? stat(inStat: UnsafeBufferPointer(rebasing: buffer[..<count])) : nil
        }
    }

    /// The parent (the 2nd field after the command name) and the start time (the 20th) of a /proc/PID/stat line:
    /// `pid (comm) state ppid pgrp ... starttime ...`. The command name may hold spaces and parentheses, so the
    /// fields are counted from the last ')'. Read byte by byte, with no string made: a new app's stat lines (one
    /// per ancestor) are read as it connects, on the sound server's loop. Nil without a parent; a start time that
    /// is missing or not a number is nil.
    static func stat<Bytes: BidirectionalCollection<UInt8>>(inStat stat: Bytes) -> ProcessStat? {
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var fields = StatFields()
        for byte in stat[stat.index(after: close)...] {
            guard fields.take(byte) else { break }
        }
        fields.endField()
        guard let parent = fields.parent else { return nil }
        return ProcessStat(parent: parent, start: fields.start)
    }

    /// The two numbers `stat(inStat:)` reads, taken a byte at a time.
    private struct StatFields {
        static let parentField = 2
        static let startField = 20

        var parent: Int32?
        var start: UInt64?
        private var field = 0
        private var inField = false
        private var number: UInt64? = 0

        /// Takes the next byte; false once both numbers are read (or the parent cannot be).
        mutating func take(_ byte: UInt8) -> Bool {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                endField()
                return field < Self.startField && !(field >= Self.parentField && parent == nil)
            }
            if !inField {
                inField = true
                field += 1
                number = 0
            }
            guard field == Self.parentField || field == Self.startField else { return true }
            guard let sofar = number, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                number = nil
                return true
            }
            let (shifted, overflow) = sofar.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            number = overflow || carry ? nil : sum
            return true
        }

        /// Ends the field being read, if any: its number is kept when it is one of the two.
        mutating func endField() {
            guard inField else { return }
            inField = false
            if field == Self.parentField { parent = number.flatMap { Int32(exactly: $0) } }
            if field == Self.startField { start = number }
        }
    }
}
