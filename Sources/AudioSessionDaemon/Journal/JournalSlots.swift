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

    /// A whole journal found in one of the files, and which file; its write number is 0 for one written whole by
    /// a daemon before the numbers (renamed into place).
    struct Found {
        var journal: JournalStreams
        var slot: Int
        var write: UInt64 { journal.write ?? 0 }
    }

    /// The newest whole journal of the two files, if either holds one. A file that is not a plain file, cannot
    /// be read or understood, is of another format version, or holds a write cut short is reported and moved
    /// aside (`NAME.corrupt`), as any state file (`StateFiles.load`); the next write makes the file anew. An
    /// empty one is no journal, and nothing to report.
    static func newest(for path: String, logger: Logger) -> Found? {
        let found = paths(for: path).enumerated().compactMap { slot, path in
            read(path, logger: logger).map { Found(journal: $0, slot: slot) }
        }
        return found.max { $0.write < $1.write }
    }

    /// One file's journal; nil when it has none that is whole (logged, see `newest`).
    static func read(_ path: String, logger: Logger) -> JournalStreams? {
        StateFiles.load(JournalStreams.self, from: path, logger: logger, writtenInPlace: true) { line in
            try StateFiles.versionProblem(of: line, for: JournalStreams.self) ?? numbersProblem(of: line)
        }
    }

    /// Why the write on `line` is not whole: it ends with another number than it starts with, or with none
    /// (nil when both are the same, or neither is there: a journal written whole and renamed into place).
    private static func numbersProblem(of line: Data) throws -> String? {
        let numbers = try JSONDecoder().decode(WriteNumbers.self, from: line)
        guard numbers.write != numbers.end else { return nil }
        let started = numbers.write.map { "write \($0)" } ?? "a write with no number"
        let ended = numbers.end.map { "write \($0)" } ?? "none"
        return "\(started) ends as \(ended) (cut short by a crash?)"
    }

    private struct WriteNumbers: Decodable {
        var write: UInt64?
        var end: UInt64?
    }
}
