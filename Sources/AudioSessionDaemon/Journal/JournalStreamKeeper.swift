import AudioSessionDaemonCore
import FoundationEssentials
import Glibc
import Logging
import PulseBackend

/// Keeps the stream journal in step with the stream ledger of one server connection. The journal is rewritten
/// whole (it is small: one entry per stream the policy changed), at most once per turn of the connection's work
/// loop, and before the policy's write that needs it: a crash can leave a stream changed only with its entry on
/// disk.
///
/// Each write goes in place into the one of the journal's two files that does not hold the newest journal
/// (`JournalSlots`), numbered one past it: once `pwrite` returns the kernel has it, and a write cut short leaves
/// the newest whole journal in the other file. Nothing is fsynced: the journal has to outlive the daemon, not the
/// machine, since a power loss takes the sound server's streams with it (docs/DAEMON.md). Entries are encoded once
/// each, when they change: re-encoding a hundred unchanged entries for the one that changed cost more than the
/// write.
struct JournalStreamKeeper: Sendable {
    /// The journal's first file, which names it in the log.
    let path: String
    let server: JournalServerIdentity
    let logger: Logger
    /// What the newest whole journal holds now.
    private(set) var written: [StreamOrigin: JournalStreamEntry] = [:]
    /// How many times the journal was written, for the log and tests.
    private(set) var writes = 0
    /// Failed writes (a full disk), logged once and counted.
    private(set) var trouble: StateWriteTrouble
    /// The files hold what an earlier daemon wrote (`reset` could not empty them): the next sync writes even with
    /// no entries.
    private var unknownOnDisk = false
    /// The two files' paths, their descriptors once opened, and which one holds the newest whole journal under
    /// what number.
    private let slotPaths: [String]
    private var descriptors: [Int32?] = [nil, nil]
    private var newestSlot: Int
    private var newestWrite: UInt64
    /// The newest write's length in bytes.
    private var newestLength = 0
    /// The JSON of each entry last encoded, and the server's: a sync encodes only the entries that changed.
    private var encodedEntries: [StreamOrigin: (entry: JournalStreamEntry, json: [UInt8])] = [:]
    private let encodedServer: [UInt8]?

    /// A keeper whose first write follows `newest`, the newest whole journal found (`JournalSlots.newest`).
    init(path: String, server: JournalServerIdentity, logger: Logger, after newest: JournalSlots.Found? = nil) {
        self.path = path
        self.server = server
        self.logger = logger
        self.trouble = StateWriteTrouble("stream journal \(path)")
        self.encodedServer = (try? StateFiles.encodeJSON(server, for: path).dropLast()).map { [UInt8]($0) }
        self.slotPaths = JournalSlots.paths(for: path)
        self.newestSlot = newest?.slot ?? 1
        self.newestWrite = newest?.write ?? 0
    }

    /// Writes `entries` if they differ from the newest journal's; false when they could not be written (the
    /// files keep what they held, and `written` says what that is).
    @discardableResult
    mutating func sync(_ entries: [StreamOrigin: JournalStreamEntry]) -> Bool {
        guard entries != written || unknownOnDisk else { return true }
        let slot = 1 - newestSlot
        let write = newestWrite &+ 1
        do {
            let descriptor = try descriptor(of: slot)
            let data = encode(entries, write: write)
            try StateFiles.writeInPlace(data, into: descriptor, path: slotPaths[slot])
            newestLength = data.count
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
        newestSlot = slot
        newestWrite = write
        written = entries
        writes += 1
        return true
    }

    /// The open file of `slot`, opened (created) when it is not, or when it no longer is the file at its name
    /// alone (removed or renamed over, or given another name: then what stands there is looked at anew).
    private mutating func descriptor(of slot: Int) throws(StateWriteError) -> Int32 {
        if let descriptor = descriptors[slot] {
            var info = stat()
            if fstat(descriptor, &info) == 0 && info.st_nlink == 1 { return descriptor }
            Glibc.close(descriptor)
            descriptors[slot] = nil
        }
        let descriptor = try StateFiles.openInPlaceOrThrow(slotPaths[slot], flags: O_RDWR, logger: logger)
        descriptors[slot] = descriptor
        return descriptor
    }

    /// Closes the files (the connection ended); the journal stays in them.
    mutating func close() {
        for case let descriptor? in descriptors { _ = Glibc.close(descriptor) }
        descriptors = [nil, nil]
    }

    /// The journal as one line: its write number, the JSON of `JournalStreams` (the entries not encoded before
    /// by `JournalEntryJSON`), and its number again. Made as bytes, then one `Data`: appending a hundred entries'
    /// JSON to a `Data` one by one cost more than encoding the entries that changed.
    private mutating func encode(_ entries: [StreamOrigin: JournalStreamEntry], write: UInt64) -> Data {
        var data: [UInt8] = []
        data.reserveCapacity(newestLength + 1024)
        // Put together piece by piece: a string's interpolation cost more than the entry's encoding.
        data.append(contentsOf: "{\"write\":".utf8)
        data.append(contentsOf: String(write).utf8)
        data.append(contentsOf: ",\"entries\":[".utf8)
        var encoded: [StreamOrigin: (entry: JournalStreamEntry, json: [UInt8])] = [:]
        encoded.reserveCapacity(entries.count)
        // By kind, then index: sink inputs first, as the kinds' names sort. One number each, not the names:
        // comparing those made the sort 6 % of the daemon's CPU time in calls with 10 and 100 streams.
        let sorted = entries.sorted { Self.order(of: $0.key) < Self.order(of: $1.key) }
        for (position, (origin, entry)) in sorted.enumerated() {
            if position > 0 { data.append(UInt8(ascii: ",")) }
            let json: [UInt8]
            if let known = encodedEntries[origin], known.entry == entry {
                json = known.json
            } else {
                json = JournalEntryJSON.encode(entry)
            }
            encoded[origin] = (entry, json)
            data.append(contentsOf: json)
        }
        encodedEntries = encoded
        data.append(contentsOf: "]".utf8)
        if let encodedServer {
            data.append(contentsOf: ",\"server\":".utf8)
            data.append(contentsOf: encodedServer)
        }
        data.append(contentsOf: ",\"version\":".utf8)
        data.append(contentsOf: String(JournalStreams.formatVersion).utf8)
        data.append(contentsOf: ",\"end\":".utf8)
        data.append(contentsOf: String(write).utf8)
        data.append(contentsOf: "}\n".utf8)
        return Data(data)
    }

    private static func order(of origin: StreamOrigin) -> UInt64 {
        switch origin {
        case .sinkInput(let index): UInt64(index)
        case .sourceOutput(let index): 1 << 32 | UInt64(index)
        case .client: .max  // a client's own stream has no entry
        }
    }

    /// Writes an empty journal, whatever the files held, and cuts the file written to its length (what is left
    /// after a line end from longer writes is dropped, here off the path of any event).
    mutating func reset() {
        written = [:]
        unknownOnDisk = true
        guard sync([:]), let descriptor = descriptors[newestSlot] else { return }
        _ = ftruncate(descriptor, off_t(newestLength))
    }

    /// Whether the files may still hold an earlier daemon's entries (`reset` could not empty them).
    var mayHoldOlderEntries: Bool { unknownOnDisk }
}
