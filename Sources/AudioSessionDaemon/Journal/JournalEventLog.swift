import AudioSessionEventLog
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The event log: one JSON record per line in `events.jsonl`, appended after each daemon input. Bounded: when
/// the file holds half the limit of events it becomes `events.1.jsonl` (replacing the one before) and a new
/// file starts with a checkpoint, so the last `limit / 2` to `limit` events are kept. Appends are not
/// fsynced: the log is for looking back, and a line cut short by a crash is reported and skipped on reading.
struct JournalEventLog: Sendable {
    static let defaultLimit = 10_000

    let path: String
    let olderPath: String
    let eventsPerFile: Int
    let logger: Logger
    private var descriptor: Int32
    private(set) var count: Int
    /// Failed appends (a full disk), logged once and counted.
    private var trouble: StateWriteTrouble

    /// Opens (or creates) the log in `directory`.
    static func open(in directory: StateDirectory, limit: Int = defaultLimit, logger: Logger) -> JournalEventLog? {
        let path = directory.file(JournalEventLogFiles.fileName)
        guard let descriptor = StateFiles.openInPlace(path, flags: O_RDWR | O_APPEND, logger: logger) else {
            logger.error("event log \(path) cannot be opened; no event log")
            return nil
        }
        let data = StateFiles.read(descriptor) ?? Data()
        let count = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let endsMidLine = data.last.map { $0 != UInt8(ascii: "\n") } ?? false
        var log = JournalEventLog(
            path: path,
            olderPath: directory.file(JournalEventLogFiles.olderFileName),
            eventsPerFile: max(1, limit / 2),
            logger: logger,
            descriptor: descriptor,
            count: count
        )
        if endsMidLine {
            logger.warning("event log \(path): its last line was cut short (a crash?); it is skipped on reading")
            log.write(Data("\n".utf8))
        }
        return log
    }

    private init(path: String, olderPath: String, eventsPerFile: Int, logger: Logger, descriptor: Int32, count: Int) {
        self.path = path
        self.olderPath = olderPath
        self.eventsPerFile = eventsPerFile
        self.logger = logger
        self.descriptor = descriptor
        self.count = count
        self.trouble = StateWriteTrouble("event log \(path)")
    }

    /// Appends records; true when the file is full and should be rotated.
    mutating func append(_ records: [JournalRecord]) -> Bool {
        guard !records.isEmpty else { return false }
        var data = Data()
        for record in records {
            // An event's line by hand (`JournalRecordJSON`), the rare records by the encoder, alike.
            guard let line = JournalRecordJSON.encode(record) ?? Self.encoded(record) else { continue }
            data.append(contentsOf: line)
            data.append(UInt8(ascii: "\n"))
            if record.kind == .event { count += 1 }
        }
        write(data)
        return count >= eventsPerFile
    }

    private static func encoded(_ record: JournalRecord) -> [UInt8]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(record)).map(Array.init)
    }

    /// Starts a new file with `checkpoint`; the current one becomes the older one.
    mutating func rotate(startingWith checkpoint: JournalRecord) {
        if descriptor >= 0 { Glibc.close(descriptor) }
        // A rename replaces a link at the older name; it never writes through it.
        Glibc.rename(path, olderPath)
        descriptor = StateFiles.openInPlace(path, flags: O_WRONLY | O_APPEND | O_TRUNC, logger: logger) ?? -1
        count = 0
        _ = append([checkpoint])
    }

    /// Closes the file; the log is not used after this (the keeper's `finish`).
    mutating func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    private mutating func write(_ data: Data) {
        guard descriptor >= 0 else { return }
        let failure: StateFiles.WriteError? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return StateFiles.WriteError.system("cannot append to", path)
                }
                offset += written
            }
            return nil
        }
        if let failure {
            trouble.failed(failure, logger: logger, consequence: "the events meanwhile are not recorded")
        } else {
            trouble.succeeded(logger: logger)
        }
    }
}
