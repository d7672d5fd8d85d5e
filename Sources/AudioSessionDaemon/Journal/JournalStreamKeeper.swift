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
                consequence: "the policy mutes, ducks or moves no stream it would have to journal first"
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

    func needsWrite(_ origin: StreamOrigin, _ entry: JournalStreamEntry?) -> Bool { written[origin] != entry }
}

extension PulseSession {
    /// The journal entry the ledger calls for now: one while the policy has anything of its own on the stream.
    /// Its policy volume spans the user's volume, the policy's aim and what was last written; `widening` also
    /// keeps the span and mute of the entry on disk (for the same user's values), for when the server may still
    /// have an earlier value of the policy's: ahead of a write, and while a fade goes on.
    func journalEntry(for origin: StreamOrigin, widening: Bool) -> JournalStreamEntry? {
        guard let entry = ledger.entries[origin], entry.policyChanges else { return nil }
        let kind: JournalStreamEntry.Kind
        let index: UInt32
        switch origin {
        case .sinkInput(let number): (kind, index) = (.sinkInput, number)
        case .sourceOutput(let number): (kind, index) = (.sourceOutput, number)
        case .client: return nil
        }
        let user = entry.userVolume.channels
        let aim = entry.policyGain == 1 ? entry.userVolume : entry.userVolume.scaled(by: entry.policyGain)
        var policyVolume = Self.farther(aim.channels, entry.writtenVolume.channels, from: user)
        var policyMuted = entry.policyMuted || entry.heldSinceMove || (entry.writtenMuted && !entry.userMuted)
        if widening, let before = journal?.written[origin], before.userVolume == user,
            before.userMuted == entry.userMuted
        {
            policyVolume = Self.farther(policyVolume, before.policyVolume, from: user)
            policyMuted = policyMuted || before.policyMuted
        }
        let isSink = kind == .sinkInput
        let properties = lastReported[origin]?.properties ?? [:]
        let saved = savedBeforePolicy[origin] ?? nil
        return JournalStreamEntry(
            kind: kind,
            index: index,
            application: properties["application.name"],
            processID: properties["application.process.id"],
            role: properties["media.role"],
            userVolume: user,
            userMuted: entry.userMuted,
            policyVolume: policyVolume,
            policyMuted: policyMuted,
            movedFrom: entry.isMovedByPolicy
                ? entry.deviceBeforePolicy.flatMap { devices.name(of: $0, isSink: isSink) } : nil,
            movedTo: entry.isMovedByPolicy ? entry.requestedDevice : nil,
            restoreKey: entry.restoreKey,
            restoreDevice: saved?.device
        )
    }

    /// Per channel, whichever of `a` and `b` is farther from `user` (`a` where the channel maps differ).
    static func farther(_ a: [UInt32], _ b: [UInt32], from user: [UInt32]) -> [UInt32] {
        guard a.count == b.count, a.count == user.count else { return a }
        return zip(zip(a, b), user).map { pair, user in
            let (a, b) = pair
            return a.distance(to: user).magnitude >= b.distance(to: user).magnitude ? a : b
        }
    }

    /// Before a write to the server: the stream's entry goes to disk first if it is not there as it must be.
    /// False when it had to and could not (the disk is full): then the write must not be made, or a crash could
    /// leave the stream changed with nothing on disk to undo it.
    mutating func journalAhead(of write: StreamLedger.Write) -> Bool {
        guard journal != nil else { return true }
        let origin: StreamOrigin =
            switch write {
            case .volume(let origin, _), .mute(let origin, _), .move(let origin, _): origin
            }
        return journalAhead(of: [origin]).isEmpty
    }

    /// The streams of `origins` whose entries had to go to disk ahead of a write and could not.
    mutating func journalAhead(of origins: [StreamOrigin]) -> Set<StreamOrigin> {
        guard journal != nil else { return [] }
        let needed = origins.filter { origin in
            guard let entry = journalEntry(for: origin, widening: true) else { return false }
            return journal?.needsWrite(origin, entry) == true
        }
        guard !needed.isEmpty else { return [] }
        syncJournal(removing: false)
        return Set(
            needed.filter { origin in journal?.needsWrite(origin, journalEntry(for: origin, widening: true)) == true }
        )
    }

    /// The whole journal as the ledger calls for it. Ahead of a write only additions and changes are made
    /// (`removing: false`); an entry goes away at the end of a turn of the work loop, once the writes that gave
    /// the user's values back were made.
    mutating func syncJournal(removing: Bool = true) {
        guard let journal else { return }
        var entries = removing ? [:] : journal.written
        for origin in ledger.entries.keys {
            if let entry = journalEntry(for: origin, widening: !removing || fades[origin] != nil) {
                entries[origin] = entry
            }
        }
        self.journal?.sync(entries)
    }

    /// Every stream has its user's values back (shutdown): nothing left to recover, and nothing more is
    /// journaled.
    mutating func clearJournal() {
        journal?.sync([:])
        journal = nil
    }
}

extension DeviceTable {
    func name(of index: UInt32, isSink: Bool) -> String? {
        (isSink ? sinks : sources)[index]?.name
    }
}
