import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

/// The daemon's status in words: switch, lock and media services, ports, a table of sessions, a table of
/// streams. `status`, `watch` and `route list` print it (or parts of it); on a terminal that allows colour, states
/// and verdicts are coloured (`TerminalStyle`).
enum StatusView {
    static func render(_ status: StatusBody, style: TerminalStyle = .plain) -> String {
        var lines = [
            "silent switch: \(status.silentSwitch.rawValue)   screen: \(status.screenLocked ? "locked" : "unlocked")"
                + "   media services: \(status.mediaServicesAvailable ? "available" : "lost")"
                + (status.volume.map {
                    "   volume: \(VolumeLevel.percent($0))\(status.mixerMuted == true ? " (muted for the switch)" : "")"
                } ?? "")
        ]
        lines += portLines(status)
        lines.append("")
        lines += sessionLines(status, style: style)
        lines.append("")
        lines += streamLines(status, style: style)
        return lines.joined(separator: "\n")
    }

    /// Outputs and inputs in connection order, the selected output marked.
    static func portLines(_ status: StatusBody) -> [String] {
        let outputs = status.outputs.map { $0 == status.selectedOutput ? "\($0.rawValue) (selected)" : $0.rawValue }
        return [
            "outputs: " + (outputs.isEmpty ? "none" : outputs.joined(separator: ", ")),
            "inputs:  " + (status.inputs.isEmpty ? "none" : status.inputs.map(\.rawValue).joined(separator: ", ")),
        ]
    }

    static func sessionLines(_ status: StatusBody, style: TerminalStyle = .plain) -> [String] {
        guard !status.sessions.isEmpty else { return ["sessions: none"] }
        var table = TextTable(header: [
            "#", "app", "category/mode", "options", "state", "output", "input", "route", "because",
        ])
        for session in status.sessions {
            table.rows.append([
                String(session.session),
                appName(session),
                "\(session.category.rawValue)/\(session.mode.rawValue)",
                session.options.isEmpty ? "-" : session.options.joined(separator: ","),
                session.state.rawValue + (session.appState == .background ? " (background)" : ""),
                session.output.rawValue,
                session.input.rawValue,
                routeText(session.currentRoute),
                session.because,
            ])
        }
        // The state, output and input columns: their first word says how the session sounds.
        return ["sessions:"]
            + table.lines { column, text in [4, 5, 6].contains(column) ? paintFirstWord(text, style) : text }
    }

    static func streamLines(_ status: StatusBody, style: TerminalStyle = .plain) -> [String] {
        guard !status.streams.isEmpty else { return ["streams: none"] }
        let apps = Dictionary(status.sessions.map { ($0.session, $0.app) }, uniquingKeysWith: { first, _ in first })
        var table = TextTable(header: ["#", "session", "origin", "running", "verdict", "port", "because"])
        for stream in status.streams {
            table.rows.append([
                String(stream.stream),
                apps[stream.session].map { "\(stream.session) \($0)" } ?? String(stream.session),
                stream.origin,
                stream.running ? "yes" : "no",
                stream.verdict + (stream.gain.map { " \(gainText($0))" } ?? ""),
                stream.port?.rawValue ?? "-",
                stream.because,
            ])
        }
        return ["streams:"]
            + table.lines { column, text in column == 4 ? paintFirstWord(text, style) : text }
    }

    /// `ducked 0.25 (-12 dB)` with its first word in the colour of that state or verdict.
    static func paintFirstWord(_ text: String, _ style: TerminalStyle) -> String {
        let word = String(text.prefix { $0 != " " })
        return style.paint(word, TerminalStyle.colour(of: word)) + text.dropFirst(word.count)
    }

    /// The app's name, with `[call]` or `[unaware]` when the session is one.
    static func appName(_ session: SessionStateBody) -> String {
        session.app + (session.call ? " [call]" : "") + (session.unaware ? " [unaware]" : "")
    }

    /// `headphones`, `receiver/builtInMic` (output/input), `-/builtInMic` for input only, `none`.
    static func routeText(_ route: RouteBody) -> String {
        switch (route.output, route.input) {
        case (nil, nil): "none"
        case (let output?, nil): output.rawValue
        case (let output, let input?): "\(output?.rawValue ?? "-")/\(input.rawValue)"
        }
    }

    /// A linear gain and its level in dB: `0.25 (-12 dB)`.
    static func gainText(_ gain: Double) -> String {
        let decibels = gain > 0 ? String(format: "%.0f dB", 20 * log10(gain)) : "-inf dB"
        return String(format: "%.2f", gain) + " (\(decibels))"
    }

    /// The status as the daemon sends it, pretty-printed (`status --json`).
    static func json(_ status: StatusBody) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(status)).map { String(decoding: $0, as: UTF8.self) } ?? LineCoding.encode(status)
    }
}
