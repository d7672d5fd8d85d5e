import ArgumentParser
import AudioSessionProtocol
import Foundation

/// `audiosessionctl watch [--count N]`: the status, redrawn whenever it changes.
struct WatchCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show the status and redraw it whenever it changes, until interrupted.",
        discussion: """
            On a terminal the screen is redrawn; otherwise each new view follows the last after a blank line. \
            Ends on SIGINT or SIGTERM, or when the daemon closes the connection.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Stop after this many views (the first one included).")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let socket = try connection.connect()
        guard let first = try socket.result(Request(op: .watch)).status else {
            throw CLIError("the daemon's reply to watch has no status in it")
        }
        let terminal = output.isTerminal
        var shown = 0
        var last: StatusBody?
        func show(_ status: StatusBody) {
            // The daemon publishes after every input, changed or not: only a change is drawn.
            guard status != last else { return }
            last = status
            let view = StatusView.render(status)
            print(terminal ? "\u{1B}[H\u{1B}[2J" + view : (shown == 0 ? "" : "\n") + view, to: &output)
            fflush(nil)
            shown += 1
        }
        return try SignalTrap.catching([SIGINT, SIGTERM]) {
            show(first)
            while count.map({ shown < $0 }) ?? true, SignalTrap.received == 0 {
                let event: Event?
                do {
                    event = try socket.nextEvent(timeout: .seconds(1))
                } catch let error as CLIError where error == .connectionClosed {
                    print("audiosessionctl: \(error)", to: &errors)
                    return 0
                }
                if let event, event.event == .status, let status = event.status { show(status) }
            }
            return 0
        }
    }
}
