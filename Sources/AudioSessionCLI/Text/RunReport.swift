import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

/// What `run` says about its session as the daemon's status changes: one line per change of its state (with
/// the reason: `interrupted by phone (A6)`), of its output (`ducked to 0.25`, `audible`, `silent`) and of its
/// route (`route headphones`).
struct RunReport {
    let session: Int
    private var last: Look?

    /// What the lines are about, as one status shows it.
    private struct Look: Equatable {
        var state: SessionState
        var because: String
        var output: String
        var route: String
    }

    init(session: Int) { self.session = session }

    /// The lines for the changes since the previous status; the first status only sets where changes start.
    mutating func lines(for status: StatusBody) -> [String] {
        guard let body = status.sessions.first(where: { $0.session == session }) else { return [] }
        let look = Look(
            state: body.state,
            because: body.because,
            output: Self.outputText(body, in: status),
            route: StatusView.routeText(body.currentRoute)
        )
        defer { last = look }
        guard let last else { return [] }
        var lines: [String] = []
        if look.state != last.state { lines.append(look.because) }
        if look.output != last.output { lines.append(look.output) }
        if look.route != last.route { lines.append("route \(look.route)") }
        return lines
    }

    /// `audible`, `ducked to 0.25`, `silent`, or `no stream playing` (none of its output streams runs).
    static func outputText(_ session: SessionStateBody, in status: StatusBody) -> String {
        switch session.output {
        case .none: return "no stream playing"
        case .ducked:
            let gain = StatusChanges.duckedGain(of: session.session, in: status)
            return "ducked" + (gain.map { " to " + String(format: "%.2f", $0) } ?? "")
        case .audible, .silent: return session.output.rawValue
        }
    }
}
