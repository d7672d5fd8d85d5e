import AudioSessionPolicy

/// One of the core's log lines. The lines of a turn that answers a sound server's event (a stream's verdict, a
/// session's notification, an unaware app's classification) are kept as their parts and put into words only when
/// read, which the daemon does after the turn's orders are out: building their text in the turn cost 26 K of the
/// 327 K instructions between a new stream's info and the write that answers it (docs/DAEMON.md, "The hot path").
/// The parts are values taken as the line is made, so a line reads as it would have then.
///
/// Two lines are equal when their words are.
package struct LogLine: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    private enum Words: Sendable {
        case written(String)
        case later(@Sendable () -> String)
    }

    private let words: Words

    package init(_ text: String) {
        words = .written(text)
    }

    /// A line whose words `write` puts together when it is read.
    package init(later write: @escaping @Sendable () -> String) {
        words = .later(write)
    }

    package init(stringLiteral text: String) {
        self.init(text)
    }

    package init(stringInterpolation: DefaultStringInterpolation) {
        self.init(String(stringInterpolation: stringInterpolation))
    }

    package var text: String {
        switch words {
        case .written(let text): text
        case .later(let write): write()
        }
    }

    package var description: String { text }

    package static func == (a: LogLine, b: LogLine) -> Bool { a.text == b.text }

    /// `reason` in words when the line is read, with the other session it names (the interrupter, the ducker) as
    /// `name` names it now: the only name a reason's words use (`Explainer.describe`).
    package static func words(
        for reason: Reason,
        naming name: (SessionID) -> String
    ) -> @Sendable () -> String {
        let other = reason.session.map(name)
        return { Explainer(name: { other ?? "\($0)" }, when: { _ in nil }).describe(reason) }
    }
}
