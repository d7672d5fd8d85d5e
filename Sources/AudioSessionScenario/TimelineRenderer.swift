import AudioSessionPolicy

/// A replay as a table a person can read at a glance: one row per step, one column per session showing its
/// state, output and route.
public enum TimelineRenderer {
    /// The table, each row followed by the notifications its step sent and any error; with `explain`, also by
    /// why each session whose cell changed is as it is.
    public static func render(_ result: ScenarioResult, explain: Bool) -> String {
        let names = result.names.names
        let header = ["step", "action"] + names
        var rows: [[String]] = []
        var notes: [Int: [String]] = [:]
        var previousCells: [String] = []
        for (index, row) in result.timeline.enumerated() {
            let cells = row.sessions.map { cell(for: $0) }
            let failed = result.failures.contains { $0.step?.number == row.step.number }
            rows.append(["\(row.step.number)\(failed ? " ✗" : "")", describe(row.step)] + cells)
            var lines = row.notifications.map { "→ \($0)" }
            if let error = row.error { lines.append("error: \(error)") }
            if explain {
                for (column, snapshot) in row.sessions.enumerated()
                where previousCells.count <= column || previousCells[column] != cells[column] {
                    lines += row.explanations[snapshot.id] ?? result.explainer.explain(snapshot)
                }
            }
            previousCells = cells
            notes[index] = lines
        }
        let widths = header.indices.map { column in
            ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }
                .joined(separator: " | ")
        }
        var output = [
            result.scenario.name, line(header),
            widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"),
        ]
        for (index, row) in rows.enumerated() {
            output.append(line(row))
            output += (notes[index] ?? []).map { "      \($0)" }
        }
        return output.joined(separator: "\n")
    }

    /// "active audible speaker", "interrupted silent headphones", "inactive - -".
    static func cell(for snapshot: SessionSnapshot) -> String {
        var parts = [snapshot.state.rawValue, snapshot.output.rawValue]
        if snapshot.input != .none { parts.append("in:" + snapshot.input.rawValue) }
        parts.append(snapshot.route.output?.rawValue ?? snapshot.route.input?.rawValue ?? "-")
        return parts.joined(separator: " ")
    }

    static func describe(_ step: Step) -> String {
        switch step.action {
        case .activate(let name), .play(let name), .pause(let name), .record(let name), .stopRecording(let name),
            .background(let name), .foreground(let name):
            "\(step.action.keyword) \(name)"
        case .deactivate(let name, let notifyOthers): "deactivate \(name)\(notifyOthers ? " +notify" : "")"
        case .setCategory(let name, let category, let mode, _):
            "setCategory \(name) \(category.rawValue)/\(mode.rawValue)"
        case .silentSwitch(let position): "switch \(position.rawValue)"
        case .screenLocked(let locked): locked ? "lock" : "unlock"
        case .connect(let port), .disconnect(let port), .selectOutput(let port):
            "\(step.action.keyword) \(port.rawValue)"
        case .overrideOutput(let name, let override): "override \(name) \(override.rawValue)"
        case .mediaServicesLost: "media lost"
        case .mediaServicesReset: "media reset"
        case .wait(let milliseconds): "wait \(milliseconds)ms"
        case .expect: "expect"
        }
    }
}
