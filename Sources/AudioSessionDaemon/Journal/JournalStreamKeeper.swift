import AudioSessionDaemonCore
import FoundationEssentials
import Glibc
import Logging
import PulseBackend

/// Keeps `streams.json` in step with the stream ledger of one server connection. The file is rewritten whole
/// (it is small: one entry per stream the policy changed), at most once per turn of the connection's work loop,
/// and before the policy's write that needs it: a crash can leave a stream changed only with its entry on disk.
///
/// On the path from a server event to the orders that answer it, `sync` writes `streams.json.tmp` and no more:
/// once that returns the kernel has it, and a daemon that starts after a crash reads a whole temporary as the
/// newest journal (`StateFiles.loadTemporary`). `commit`, after the orders, gives it the name `streams.json`
/// (`StateFiles.moveTemporary`: the old file removed, then the temporary renamed to the free name). Nothing
/// is fsynced: the journal has to outlive the daemon, not the machine, since a power loss takes the sound server's
/// streams with it (docs/DAEMON.md). Entries are encoded once each, when they change: re-encoding a hundred
/// unchanged entries for the one that changed cost more than the write.
struct JournalStreamKeeper: Sendable {
    let path: String
    let server: JournalServerIdentity
    let logger: Logger
    /// What the file holds now.
    private(set) var written: [StreamOrigin: JournalStreamEntry] = [:]
    /// How many times the file was written, for the log and tests.
    private(set) var writes = 0
    /// Failed writes (a full disk), logged once and counted.
    private(set) var trouble: StateWriteTrouble
    /// The file holds what an earlier daemon wrote (`reset` could not empty it): the next sync writes it even
    /// with no entries.
    private var unknownOnDisk = false
    /// The temporary holds the newest journal (what `written` says), not named yet (`commit`): it must not be
    /// removed before it is, so a sync names it first.
    private var temporaryIsNewest = false
    /// The next temporary, created empty once the last one was named (`StateFiles.prepareTemporary`): a sync
    /// only writes into it. Closed by `close()`.
    private var preparedTemporary: Int32?
    /// The JSON of each entry last encoded, and the server's: a sync encodes only the entries that changed.
    private var encodedEntries: [StreamOrigin: (entry: JournalStreamEntry, json: Data)] = [:]
    private let encodedServer: Data?

    init(path: String, server: JournalServerIdentity, logger: Logger) {
        self.path = path
        self.server = server
        self.logger = logger
        self.trouble = StateWriteTrouble("stream journal \(path)")
        self.encodedServer = try? StateFiles.encodeJSON(server, for: path).dropLast()
    }

    /// Writes `entries` if they differ from the file's (to the temporary: `commit` renames it); false when they
    /// could not be written (the files keep what they held, and `written` says what that is).
    @discardableResult
    mutating func sync(_ entries: [StreamOrigin: JournalStreamEntry]) -> Bool {
        guard entries != written || unknownOnDisk else { return true }
        do {
            // A second sync in a turn, or one after a commit that failed: writing the new temporary would remove
            // the newest whole journal first.
            if temporaryIsNewest {
                try StateFiles.moveTemporary(to: path)
                temporaryIsNewest = false
            }
            let data = encode(entries)
            var isWritten = false
            if let descriptor = preparedTemporary {
                preparedTemporary = nil
                isWritten = try StateFiles.writeTemporary(data, into: descriptor, for: path)
            }
            if !isWritten { try StateFiles.writeTemporary(data, for: path, synced: false, logger: logger) }
        } catch {
            trouble.failed(
                error,
                logger: logger,
                consequence: "the policy silences, ducks or moves no stream it would have to journal first"
            )
            return false
        }
        trouble.succeeded(logger: logger)
        unknownOnDisk = false
        temporaryIsNewest = true
        written = entries
        writes += 1
        return true
    }

    /// Gives what the last `sync` wrote the name `streams.json`, if it has not been. A rename that fails leaves
    /// the temporary, the newest journal, where a starting daemon reads it; the next sync names it first.
    mutating func commit() {
        guard temporaryIsNewest else { return }
        do {
            try StateFiles.moveTemporary(to: path)
            temporaryIsNewest = false
            preparedTemporary = StateFiles.prepareTemporary(for: path)
        } catch {
            logger.warning("stream journal \(path): \(error); \(StateFiles.temporary(for: path)) keeps it")
        }
    }

    /// Closes and removes the temporary made ready for a write that will not come (the connection ended).
    mutating func close() {
        guard let descriptor = preparedTemporary else { return }
        preparedTemporary = nil
        _ = Glibc.close(descriptor)
        StateFiles.remove(StateFiles.temporary(for: path))
    }

    /// The journal as the file holds it: the JSON of `JournalStreams` with its keys sorted, what `JSONEncoder`
    /// would write (the entries not encoded before by `JournalEntryJSON`).
    private mutating func encode(_ entries: [StreamOrigin: JournalStreamEntry]) -> Data {
        var data = Data("{\"entries\":[".utf8)
        var encoded: [StreamOrigin: (entry: JournalStreamEntry, json: Data)] = [:]
        let sorted = entries.sorted {
            ($0.value.kind.rawValue, $0.value.index) < ($1.value.kind.rawValue, $1.value.index)
        }
        for (position, (origin, entry)) in sorted.enumerated() {
            if position > 0 { data.append(UInt8(ascii: ",")) }
            let json: Data
            if let known = encodedEntries[origin], known.entry == entry {
                json = known.json
            } else {
                json = JournalEntryJSON.encode(entry)
            }
            encoded[origin] = (entry, json)
            data.append(json)
        }
        encodedEntries = encoded
        data.append(contentsOf: "]".utf8)
        if let encodedServer {
            data.append(contentsOf: ",\"server\":".utf8)
            data.append(encodedServer)
        }
        data.append(contentsOf: ",\"version\":\(JournalStreams.formatVersion)}\n".utf8)
        return data
    }

    /// Writes an empty journal, whatever the file held.
    mutating func reset() {
        written = [:]
        unknownOnDisk = true
        sync([:])
        commit()
    }

    /// Whether the file may still hold an earlier daemon's entries (`reset` could not empty it).
    var mayHoldOlderEntries: Bool { unknownOnDisk }
}
