import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl status [--json]`: the daemon at a glance.
struct StatusCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the switch, the lock, the ports, every session and every stream.",
        discussion: """
            --json prints the status object of the control protocol (docs/PROTOCOL.md), pretty-printed with \
            sorted keys, for scripts: `audiosessionctl status --json | jq '.sessions[].state'`.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the status as the daemon sends it (JSON).")
    var json = false

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let status = try connection.connect().status()
        print(json ? StatusView.json(status) : StatusView.render(status, style: .of(output)), to: &output)
        return 0
    }
}

extension ControlConnection {
    /// The daemon's whole status (`status` request).
    func status() throws -> StatusBody {
        guard let status = try result(Request(.status)).status else {
            throw CLIError("the daemon's reply to status has no status in it")
        }
        return status
    }
}
