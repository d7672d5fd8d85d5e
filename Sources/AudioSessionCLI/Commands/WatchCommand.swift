import ArgumentParser
import AudioSessionEventLog
import AudioSessionProtocol
import Foundation

/// `audiosessionctl watch [--lines | --json] [--count N]`: each change of the daemon's status as it happens.
struct WatchCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show each change of the daemon's status as it happens, until interrupted.",
        discussion: """
            Into a pipe or a file (or with --lines) it prints one line per change: the time (ISO 8601, UTC, with \
            milliseconds), then what changed: `switch: silent`, `screen: locked`, `port connected: headphones`, \
            `selected output: speaker`, `session 3 music: interrupted (interrupted by phone (A6))`, \
            `session 3 music: output ducked 0.25 (-12 dB)`, `session 4 phone [call]: ended`. The first lines sum \
            up the status as it was when the watch began. Each line is flushed as it is written, so `grep` or a \
            log sees it at once. On a terminal the whole status is redrawn instead, under the time of the change. \
            --json prints one JSON object per line, {"time": ..., "status": ...}, the status as `status --json` \
            has it. Ends on SIGINT or SIGTERM (status 0), or when the daemon goes away (status 3).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Stop after this many updates (the first one, the status as it was, included).")
    var count: Int?

    @Flag(help: "One line per change even on a terminal.")
    var lines = false

    @Flag(help: "One JSON object per line: the time and the whole status.")
    var json = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if lines && json { throw ValidationError("--lines and --json are two different formats: choose one") }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let socket = try connection.connect()
        guard let first = try socket.result(Request(.watch)).status else {
            throw CLIError("the daemon's reply to watch has no status in it")
        }
        let style = TerminalStyle.of(output)
        let format: WatchFormat = json ? .json : (lines || !style.isTerminal ? .lines : .screen(style))
        var shown = 0
        var last: StatusBody?
        func show(_ status: StatusBody) {
            // The daemon publishes after every input, changed or not: only a change is written.
            guard status != last else { return }
            let text = format.text(for: status, after: last, at: UTCTime.iso8601(Date().timeIntervalSince1970))
            last = status
            guard !text.isEmpty else { return }
            output.write(text)
            // Standard output is buffered in whole blocks when it is a pipe or a file: each update goes out now.
            if output.isStandardOutput { fflush(nil) }
            shown += 1
        }
        return try SignalTrap.catching([SIGINT, SIGTERM]) {
            show(first)
            while count.map({ shown < $0 }) ?? true, SignalTrap.received == 0 {
                let event: Event?
                do {
                    event = try socket.nextEvent(timeout: .seconds(1))
                } catch let error as CLIError where error == .connectionClosed {
                    print("audiosessionctl: the daemon closed the connection; the watch has ended", to: &errors)
                    return ExitStatus.unreachable.rawValue
                }
                if let event, event.event == .status, let status = event.status { show(status) }
            }
            return ExitStatus.success.rawValue
        }
    }
}

/// How `watch` writes an update.
enum WatchFormat {
    /// One line per change, each starting with the time.
    case lines
    /// One JSON object per update.
    case json
    /// The whole status, redrawn on a terminal.
    case screen(TerminalStyle)

    /// What to write for `status` (following `previous`, nil for the first), each line ended by a newline;
    /// empty when nothing this format shows changed.
    func text(for status: StatusBody, after previous: StatusBody?, at time: String) -> String {
        switch self {
        case .lines:
            let changes = previous.map { StatusChanges.lines(from: $0, to: status) } ?? StatusChanges.summary(status)
            return changes.map { "\(time) \($0)\n" }.joined()
        case .json:
            return LineCoding.encode(WatchRecord(time: time, status: status)) + "\n"
        case .screen(let style):
            return style.clearScreen + style.paint(time, .bold) + "\n" + StatusView.render(status, style: style) + "\n"
        }
    }
}

/// One line of `watch --json`.
struct WatchRecord: Codable, Equatable {
    /// When the tool received the status: ISO 8601, UTC, milliseconds.
    var time: String
    var status: StatusBody
}
