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
        case later(@Sendable () -> LogText)
    }

    private let words: Words

    package init(_ text: String) {
        words = .written(text)
    }

    /// A line whose words `write` puts together when it is read.
    package init(later write: @escaping @Sendable () -> LogText) {
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
        case .later(let write): String(decoding: write().bytes, as: UTF8.self)
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

/// A line's words as `LogLine(later:)` puts them together: each piece's bytes appended to the line's. The same text
/// as a `String`'s interpolation, which cost about 400 instructions a piece (a verdict's line has ten) where this
/// costs a copy; the line becomes a `String` once, when it is read.
package struct LogText: ExpressibleByStringInterpolation {
    package private(set) var bytes: [UInt8]

    package init(stringLiteral text: String) {
        bytes = []
        bytes.append(utf8Of: text)
    }

    package init(stringInterpolation: StringInterpolation) {
        bytes = stringInterpolation.bytes
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var bytes: [UInt8] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            bytes.reserveCapacity(literalCapacity + 24 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) {
            bytes.append(utf8Of: literal)
        }

        package mutating func appendInterpolation(_ value: String) {
            bytes.append(utf8Of: value)
        }

        /// What `String(describing:)` writes of it, as an interpolated `String` would have it.
        package mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            bytes.append(utf8Of: value.description)
        }
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8, copied whole from where a native string keeps it.
    package mutating func append(utf8Of text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
