import Glibc
import Locking
import Testing

@testable import AudioSessionDaemon

/// `ProcessLine`'s stat reading and `ProcessLineMemory`: a kept line is used for the same process only, found by
/// its start time and parent, for one stat read instead of one per ancestor.
@Suite struct ProcessLineMemoryTests {
    /// A stand-in /proc: each process's stat, changed by the test, and the reads made of it.
    final class Processes: Sendable {
        let stats: Locked<[Int32: ProcessStat]>
        let reads = Locked<[Int32]>([])

        init(_ stats: [Int32: ProcessStat]) { self.stats = Locked(stats) }

        func memory() -> ProcessLineMemory {
            ProcessLineMemory { processID in
                self.reads.withLock { $0.append(processID) }
                return self.stats.withLock { $0[processID] }
            }
        }

        /// The reads since the last call.
        func takeReads() -> [Int32] { reads.withLock { reads in defer { reads = [] }; return reads } }
    }

    /// An app (40) started from a shell (30) in a terminal (20) under the session's manager (1).
    static func terminalApp() -> Processes {
        Processes([
            40: ProcessStat(parent: 30, start: 4_000),
            30: ProcessStat(parent: 20, start: 3_000),
            20: ProcessStat(parent: 1, start: 2_000),
        ])
    }

    @Test(arguments: [
        ("4242 (mpv) S 4000 4242 4000 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 9 0 123456 1000 2", 4000, UInt64(123_456)),
        ("17 (a) b (c) S 9 17 17 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77\n", 9, 77),
        ("4242 (mpv) S 4000 4242", 4000, nil),
        ("4242 (mpv) S 4000 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12x4 1", 4000, nil),
        ("4242 (mpv) S 4000 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999999 1", 4000, nil),
    ] as [(String, Int32, UInt64?)])
    func theStartTimeIsTheTwentiethFieldPastTheCommandName(stat: String, parent: Int32, start: UInt64?) {
        #expect(ProcessLine.stat(inStat: Array(stat.utf8)) == ProcessStat(parent: parent, start: start))
    }

    @Test func theProcessLineOfARealProcessStartsWithItAndItsParentWithItsStartTime() throws {
        let own = try #require(ProcessLine.stat(ofProcess: getpid()))
        #expect(own.parent == getppid())
        #expect(own.start != nil)
        var memory = ProcessLineMemory()
        #expect(Array(memory.line(of: getpid()).prefix(2)) == [getpid(), getppid()])
        #expect(memory.line(of: Int32.max) == [])
    }

    @Test func aProcessReadAgainCostsOneStatAndGetsItsKeptLine() {
        let processes = Self.terminalApp()
        var memory = processes.memory()
        #expect(memory.line(of: 40) == [40, 30, 20])
        #expect(processes.takeReads() == [40, 30, 20])
        #expect(memory.line(of: 40) == [40, 30, 20])
        #expect(processes.takeReads() == [40])
        // An ancestor's line was not kept of its own: it is read through.
        #expect(memory.line(of: 30) == [30, 20])
        #expect(processes.takeReads() == [30, 20])
    }

    @Test func aLaterProcessWithTheSameIDOrAMovedOneIsReadThrough() {
        let processes = Self.terminalApp()
        var memory = processes.memory()
        _ = memory.line(of: 40)
        _ = processes.takeReads()
        // The app ended and its ID went to a process started later, from another parent.
        processes.stats.withLock {
            $0[40] = ProcessStat(parent: 20, start: 9_000)
        }
        #expect(memory.line(of: 40) == [40, 20])
        #expect(processes.takeReads() == [40, 20])
        // Its shell ended: it was moved to the terminal, same start time.
        processes.stats.withLock { $0[40] = ProcessStat(parent: 20, start: 4_000) }
        _ = memory.line(of: 40)
        _ = processes.takeReads()
        processes.stats.withLock { $0[40] = ProcessStat(parent: 1, start: 4_000) }
        #expect(memory.line(of: 40) == [40])
        #expect(processes.takeReads() == [40])
    }

    @Test func aProcessGoneOrWithoutAStartTimeIsNeverTakenFromMemory() {
        let processes = Self.terminalApp()
        var memory = processes.memory()
        _ = memory.line(of: 40)
        processes.stats.withLock { $0[40] = nil }
        #expect(memory.line(of: 40) == [])
        // Back with the same stat (a test's /proc can do that): it was forgotten, so it is read through.
        processes.stats.withLock { $0[40] = ProcessStat(parent: 30, start: 4_000) }
        _ = processes.takeReads()
        #expect(memory.line(of: 40) == [40, 30, 20])
        #expect(processes.takeReads() == [40, 30, 20])

        processes.stats.withLock { $0[40] = ProcessStat(parent: 30, start: nil) }
        for _ in 0..<2 {
            #expect(memory.line(of: 40) == [40, 30, 20])
            #expect(processes.takeReads() == [40, 30, 20])
        }
        #expect(memory.line(of: 1) == [] && memory.line(of: 0) == [] && memory.line(of: -5) == [])
        #expect(processes.takeReads() == [])
    }

    @Test func itKeepsTheLastLinesReadUpToItsCapacity() {
        let count = Int32(ProcessLineMemory.capacity)
        let apps = 100..<(101 + count)
        var stats = Dictionary(uniqueKeysWithValues: apps.map { ($0, ProcessStat(parent: 50, start: 5)) })
        stats[50] = ProcessStat(parent: 1, start: 1)
        let processes = Processes(stats)
        var memory = processes.memory()
        for process in apps { #expect(memory.line(of: process) == [process, 50]) }
        _ = processes.takeReads()
        // 100 was the oldest: forgotten for the last one; the others' lines are kept (one read each).
        for process in apps.dropFirst().reversed() { #expect(memory.line(of: process) == [process, 50]) }
        #expect(processes.takeReads() == Array(apps.dropFirst().reversed()))
        // 100 is read through and kept, and 101, the oldest now, goes.
        _ = memory.line(of: 100)
        _ = memory.line(of: 101)
        #expect(processes.takeReads() == [100, 50, 101, 50])
        _ = memory.line(of: 100)
        #expect(processes.takeReads() == [100])
    }
}
