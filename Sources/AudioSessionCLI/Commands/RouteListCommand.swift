import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl route list`: the ports, the user's selection and each session's route.
struct RouteListCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the available ports, the selected output and each session's route."
    )

    @OptionGroup var connection: ConnectionOptions

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let status = try connection.connect().status()
        var lines = StatusView.portLines(status)
        lines.append("selected output: " + (status.selectedOutput?.rawValue ?? "none (each session takes its own, R1)"))
        lines.append("")
        if status.sessions.isEmpty {
            lines.append("routes: no sessions")
        } else {
            var table = TextTable(header: ["#", "app", "category", "state", "output", "input"])
            for session in status.sessions {
                table.rows.append([
                    String(session.session), StatusView.appName(session), session.category.rawValue,
                    session.state.rawValue, session.currentRoute.output?.rawValue ?? "none",
                    session.currentRoute.input?.rawValue ?? "none",
                ])
            }
            lines += ["routes:"] + table.lines()
        }
        print(lines.joined(separator: "\n"), to: &output)
        return 0
    }
}
