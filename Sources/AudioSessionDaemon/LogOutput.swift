import AudioSessionDaemonCore
import FoundationEssentials
import Logging
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Where the daemon's log lines go. Under systemd (`JOURNAL_STREAM` set) each line is `<N>message` on standard
/// error, N the syslog priority, which journald reads as the line's level and stamps with its own time; elsewhere,
/// swift-log's usual lines with a timestamp (`TimestampedLine`).
public enum LogOutput {
    /// The level every logger of the process logs at; a reload of the configuration changes it.
    public static let level = SharedLogLevel()

    /// Sets up swift-log once for the process. Every logger's level is `level`, so that a reload reaches the
    /// copies each service holds.
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if environment["JOURNAL_STREAM"] != nil {
            LoggingSystem.bootstrap { label in SharedLevelHandler(LineHandler(label, .journal), level: level) }
        } else {
            LoggingSystem.bootstrap { label in SharedLevelHandler(LineHandler(label, .timestamped), level: level) }
        }
    }
}

/// One log level for the whole process, changed at run time (SIGHUP).
public final class SharedLogLevel: Sendable {
    private let value = Locked(Logger.Level.info)

    public var current: Logger.Level {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// A handler whose level is the process's shared one; everything else is the wrapped handler's.
struct SharedLevelHandler: LogHandler {
    private var wrapped: any LogHandler
    private let level: SharedLogLevel

    init(_ wrapped: any LogHandler, level: SharedLogLevel) {
        self.wrapped = wrapped
        self.level = level
    }

    var logLevel: Logger.Level {
        get { level.current }
        set { level.current = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { wrapped.log(event: event) }
}

/// One line per message on standard error, written with one `write`, in one of the two formats.
struct LineHandler: LogHandler {
    enum Format {
        case journal, timestamped
    }

    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    let label: String
    let format: Format

    init(_ label: String, _ format: Format) {
        self.label = label
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        switch format {
        case .journal:
            writeToStandardError(JournalLine.line(for: event, metadata: metadata) + "\n")
        case .timestamped:
            writeToStandardError(
                bytes: TimestampedLine.bytes(for: event, label: label, metadata: metadata, time: TimestampedLine.now())
            )
        }
    }
}

/// `<priority>message key=value...`, for journald.
public enum JournalLine {
    /// The line for one message; public for tests.
    public static func line(for event: LogEvent, metadata base: Logger.Metadata = [:]) -> String {
        var all = base
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return "<\(priority(of: event.level))>\(event.message)\(fields)"
    }

    /// syslog priorities: 7 debug ... 2 critical.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// swift-log's `StreamLogHandler` lines, `TIME LEVEL LABEL: key=value... [SOURCE] message`. A call over an unaware
/// stream logs half a dozen lines: the stream handler made each one's time with `localtime`, which looks at
/// /etc/localtime again every time (`TZ` unset), and wrote through stdio's lock and flush. Here the time is made
/// once a second, with `localtime_r`, which reads the time zone once (a change of the system's zone shows from
/// the next start), and each line is written with one `write`.
public enum TimestampedLine {
    /// The line for one message, its newline included; public for tests.
    public static func line(
        for event: LogEvent,
        label: String,
        metadata base: Logger.Metadata = [:],
        time: String
    ) -> String {
        String(decoding: bytes(for: event, label: label, metadata: base, time: time), as: UTF8.self)
    }

    /// `line(for:label:metadata:time:)` as the bytes written. Made as bytes, not as a `String` appended to piece
    /// by piece: each of a string's appends cost about 350 instructions, and a line has a dozen pieces.
    static func bytes(
        for event: LogEvent,
        label: String,
        metadata base: Logger.Metadata = [:],
        time: String
    ) -> [UInt8] {
        var all = base
        if let extra = event.metadata { all.merge(extra) { $1 } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        // Piece by piece: an interpolated level (an enum) is described through reflection. The source is read once:
        // swift-log makes it from the file's name each time it is asked.
        let message = event.message.description
        let source = event.source
        var line: [UInt8] = []
        line.reserveCapacity(time.utf8.count + label.utf8.count + source.utf8.count + message.utf8.count + 24)
        line.append(utf8Of: time)
        line.append(UInt8(ascii: " "))
        line.append(utf8Of: event.level.rawValue)
        line.append(UInt8(ascii: " "))
        line.append(utf8Of: label)
        line.append(UInt8(ascii: ":"))
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: " "))
            line.append(utf8Of: key)
            line.append(UInt8(ascii: "="))
            line.append(utf8Of: value.description)
        }
        line.append(utf8Of: " [")
        line.append(utf8Of: source)
        line.append(utf8Of: "] ")
        line.append(utf8Of: message)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The local time to the second, `2026-11-29T11:07:41+0000`, made again only when the second has changed.
    static func now() -> String {
        var seconds = time(nil)
        return lastTime.withLock { last in
            if last.seconds == seconds { return last.text }
            var parts = tm()
            localtime_r(&seconds, &parts)
            let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
            }
            last = (seconds, text)
            return text
        }
    }

    private static let lastTime = Locked<(seconds: time_t, text: String)>((-1, ""))
}
