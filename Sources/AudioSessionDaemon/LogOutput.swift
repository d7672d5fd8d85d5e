import FoundationEssentials
import Logging
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Where the daemon's log lines go. Under systemd (`JOURNAL_STREAM` set) each line is `<N>message` on standard
/// error, N the syslog priority, which journald reads as the line's level and stamps with its own time; elsewhere,
/// swift-log's usual lines with a timestamp.
public enum LogOutput {
    /// The level every logger of the process logs at; a reload of the configuration changes it.
    public static let level = SharedLogLevel()

    /// Sets up swift-log once for the process. Every logger's level is `level`, so that a reload reaches the
    /// copies each service holds.
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if environment["JOURNAL_STREAM"] != nil {
            LoggingSystem.bootstrap { label in SharedLevelHandler(JournalLineHandler(label: label), level: level) }
        } else {
            LoggingSystem.bootstrap { label in
                SharedLevelHandler(StreamLogHandler.standardError(label: label), level: level)
            }
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

/// One line per message, `<priority>message key=value...`, for journald.
public struct JournalLineHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        writeToStandardError(Self.line(for: event, metadata: metadata) + "\n")
    }

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
