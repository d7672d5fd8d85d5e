import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Every escape sequence the tool writes comes from here. Colour only on a terminal, and never when `NO_COLOR`
/// is set to anything but the empty string (https://no-color.org) or `TERM` is `dumb`; screen control (clearing
/// it for `watch`) only on a terminal.
struct TerminalStyle: Sendable, Equatable {
    /// Whether the output is a terminal: screen control is allowed.
    var isTerminal: Bool
    /// Whether colour is allowed.
    var usesColour: Bool

    /// Neither colour nor screen control: a file, a pipe, a test's string.
    static let plain = TerminalStyle(isTerminal: false, environment: [:])

    init(isTerminal: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let dumb = environment["TERM"] == "dumb"
        self.isTerminal = isTerminal && !dumb
        usesColour = self.isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// The style for `output`: a terminal only when it is the process's standard output and that is one.
    static func of(_ output: some TextOutputStream) -> TerminalStyle { TerminalStyle(isTerminal: output.isTerminal) }

    /// The style for standard error, where `run` reports.
    static var standardError: TerminalStyle { TerminalStyle(isTerminal: isatty(STDERR_FILENO) == 1) }

    enum Colour: String, Sendable {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case bold = "1"
    }

    /// `text` in `colour` when colour is allowed; `text` as it is otherwise or without a colour.
    func paint(_ text: String, _ colour: Colour?) -> String {
        guard usesColour, let colour, !text.isEmpty else { return text }
        return "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }

    /// Clears the screen and puts the cursor at its top; nothing when the output is not a terminal.
    var clearScreen: String { isTerminal ? "\u{1B}[H\u{1B}[2J" : "" }

    /// Goes back to the start of the line and erases it, for a line that updates itself; a new line elsewhere.
    var rewriteLine: String { isTerminal ? "\r\u{1B}[K" : "\n" }

    /// The colour of a session's state, an output or input summary, or a stream's verdict.
    static func colour(of word: String) -> Colour? {
        switch word {
        case "active", "audible", "capturing": .green
        case "ducked": .yellow
        case "interrupted", "silent", "muted": .red
        default: nil
        }
    }
}
