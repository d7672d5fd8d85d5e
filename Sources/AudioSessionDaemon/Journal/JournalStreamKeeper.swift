import AudioSessionDaemonCore
import Logging
import PulseBackend

/// Keeps `streams.json` in step with the stream ledger of one server connection. The file is rewritten whole
/// (it is small: one entry per stream the policy changed), atomically, at most once per turn of the
/// connection's work loop, and before the policy's write that needs it: a crash can leave a stream changed
/// only with its entry on disk. It is not fsynced: it has to outlive the daemon, not the machine.
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

    init(path: String, server: JournalServerIdentity, logger: Logger) {
        self.path = path
        self.server = server
        self.logger = logger
        self.trouble = StateWriteTrouble("stream journal \(path)")
    }

    /// Writes `entries` if they differ from the file's; false when the file could not be written (it keeps what
    /// it held, and `written` says what that is).
    @discardableResult
    mutating func sync(_ entries: [StreamOrigin: JournalStreamEntry]) -> Bool {
        guard entries != written || unknownOnDisk else { return true }
        let journal = JournalStreams(
            server: server,
            entries: entries.values.sorted { ($0.kind.rawValue, $0.index) < ($1.kind.rawValue, $1.index) }
        )
        do {
            try StateFiles.writeJSON(journal, to: path, durability: .processCrash, logger: logger)
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
        written = entries
        writes += 1
        return true
    }

    /// Writes an empty journal, whatever the file held.
    mutating func reset() {
        written = [:]
        unknownOnDisk = true
        sync([:])
    }

    /// Whether the file may still hold an earlier daemon's entries (`reset` could not empty it).
    var mayHoldOlderEntries: Bool { unknownOnDisk }
}
