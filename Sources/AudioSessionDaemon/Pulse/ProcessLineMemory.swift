/// The process lines read before, kept after their clients go, so that an app that connects again (a phone app
/// that connects for each call, a player for each track) costs one stat file, not one per ancestor (six for an
/// app started from a terminal, each opened, read and closed on the sound server's loop).
///
/// A kept line is used only for the process it was read for: its stat is read again, and the line stands when
/// the process started at the same time (its ID was not given to a later process) and has the same parent (it
/// was not moved to another when its parent ended). Another change higher up (an ancestor ended) can leave an
/// ended ID in a kept line; a player's process can only take that ID after the wrap-around of process IDs.
///
/// It keeps at most `capacity` lines, the oldest read forgotten first: a client can connect from any number of
/// processes.
struct ProcessLineMemory {
    static let capacity = 64

    private var lines: [Int32: (stat: ProcessStat, line: [Int32])] = [:]
    /// The processes in `lines`, oldest first.
    private var order: [Int32] = []
    /// Reads a process's stat: `ProcessLine.stat(ofProcess:)`, or a test's stand-in that counts the reads.
    private let readStat: @Sendable (Int32) -> ProcessStat?

    init(readStat: @escaping @Sendable (Int32) -> ProcessStat? = { ProcessLine.stat(ofProcess: $0) }) {
        self.readStat = readStat
    }

    /// `processID`'s line: the kept one when it still stands, else read (and kept). Empty for a process not there.
    mutating func line(of processID: Int32) -> [Int32] {
        guard processID > 1, let stat = readStat(processID) else {
            forget(processID)
            return []
        }
        if let kept = lines[processID], kept.stat == stat, stat.start != nil { return kept.line }
        let line = ProcessLine.of(processID, first: stat, readStat: readStat)
        keep(line, of: processID, stat: stat)
        return line
    }

    private mutating func keep(_ line: [Int32], of processID: Int32, stat: ProcessStat) {
        forget(processID)
        if order.count == Self.capacity { lines[order.removeFirst()] = nil }
        lines[processID] = (stat, line)
        order.append(processID)
    }

    private mutating func forget(_ processID: Int32) {
        guard lines.removeValue(forKey: processID) != nil else { return }
        order.removeAll { $0 == processID }
    }
}
