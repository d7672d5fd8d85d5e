import FoundationEssentials
import Glibc
import Logging

/// The stream journal's two files (docs/STATE.md): `streams.json` and `streams.1.json`, written in turn, in
/// place. Each write starts with its number and ends with it (`{"write":N,...,"end":N}`, then a line end); what
/// follows the line end is left from a longer write before and is no part of it. The newest journal is the
/// whole one with the higher number: a write that a crash cut short (or a full disk) starts with its new number
/// and ends with the old one, or with none, and is not taken; the other file still holds the write before it.
///
/// Writing in place costs one `pwrite`, on the path from a server event to the orders, where a temporary's
/// create and write, the old file's removal and the rename cost about fifty times as much on ext4
/// (docs/BENCHMARKS.md).
enum JournalSlots {
    /// The journal at `path`'s two files: `path` itself and `NAME.1.json` beside it.
    static func paths(for path: String) -> [String] {
        let second = path.hasSuffix(".json") ? String(path.dropLast(5)) + ".1.json" : path + ".1"
        return [path, second]
    }

    /// A whole journal found in one of the files: its write number (0 for one written whole by a daemon before
    /// the numbers, renamed into place) and which file.
    struct Found {
        var journal: JournalStreams
        var write: UInt64
        var slot: Int
    }

    /// The newest whole journal of the two files, if either holds one. A file that is not a plain file, cannot
    /// be read or understood, is of another format version, or holds a write cut short is reported and moved
    /// aside (`NAME.corrupt`), as any state file (`StateFiles.load`); the next write makes the file anew. An
    /// empty one is no journal, and nothing to report.
    static func newest(for path: String, logger: Logger) -> Found? {
        let found = paths(for: path).enumerated().compactMap { slot, path in
            read(path, logger: logger).map { Found(journal: $0.journal, write: $0.write, slot: slot) }
        }
        return found.max { $0.write < $1.write }
    }

    /// One file's journal and its write number; nil when it has none that is whole (logged, see `newest`).
    static func read(_ path: String, logger: Logger) -> (journal: JournalStreams, write: UInt64)? {
        let problem: String
        if let oddity = StateFiles.oddity(at: path) {
            problem = "it is \(oddity); not followed"
        } else {
            do {
                guard let data = try StateFiles.contents(of: path) else { return nil }
                // Made for a write that failed (a full disk) or never came (a crash right after): no journal.
                if data.isEmpty { return nil }
                let line = data.prefix { $0 != UInt8(ascii: "\n") }
                do {
                    if let wrong = try StateFiles.versionProblem(of: line, for: JournalStreams.self) {
                        problem = wrong
                    } else {
                        let journal = try JSONDecoder().decode(JournalStreams.self, from: line)
                        switch (journal.write, journal.end) {
                        case (nil, nil): return (journal, 0)
                        case (let write?, let end) where write == end: return (journal, write)
                        case (let write, let end):
                            let started = write.map { "write \($0)" } ?? "a write with no number"
                            let ended = end.map { "write \($0)" } ?? "none"
                            problem = "\(started) ends as \(ended) (cut short by a crash?)"
                        }
                    }
                } catch let error as DecodingError {
                    problem = StateFiles.describe(error, size: line.count)
                }
            } catch {
                problem = "cannot be read: \(error)"
            }
        }
        logger.error("state file \(path) ignored: \(problem)")
        rename(path, path + ".corrupt")
        return nil
    }
}
