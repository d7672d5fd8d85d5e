import AudioSessionProtocol

/// The daemon's last decisions, as its log lines say them (each with its reason), for `decisions` (the D-Bus
/// face's `RecentDecisions`, a shell's "why did that go quiet"). Bounded: the oldest go first.
package struct RecentDecisions: Sendable {
    package static let capacity = 200
    /// Each with its number; their words are put together when asked for (`LogLine`).
    private var kept: [(number: Int, line: LogLine)] = []
    private var counted = 0

    package mutating func note(_ line: LogLine) {
        counted += 1
        kept.append((counted, line))
        if kept.count > Self.capacity { kept.removeFirst(kept.count - Self.capacity) }
    }

    /// The last `count`, oldest first.
    package func last(_ count: Int) -> [DecisionBody] {
        kept.suffix(count).map { DecisionBody(number: $0.number, text: $0.line.text) }
    }
}

extension DaemonCore {
    /// Keeps this input's log lines: every decision the core logs names its reason.
    package mutating func noteDecisions() {
        for case .log(let line) in effects { recentDecisions.note(line) }
    }

    /// `decisions`: the last `count` (default 20, at most what is kept), oldest first.
    package mutating func decisions(_ request: Request, _ client: ClientID, count: Int?) {
        let count = count ?? 20
        guard count >= 1 else {
            return fail(
                request, client,
                ErrorBody(
                    code: ProtocolError.Code.badField.rawValue,
                    message: "count: expected a whole number from 1 (the daemon keeps the last \(RecentDecisions.capacity)); got \(count)",
                    field: "count"
                )
            )
        }
        send(client, .reply(.success(request.id, ReplyResult(decisions: recentDecisions.last(count)))))
    }
}
