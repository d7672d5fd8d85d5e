import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl explain SESSION`: why a session and its streams are as they are, with the rules.
struct ExplainCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Say why a session is in its state, why its streams sound as they do, and which rule decided."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The session: its number or its app's name.")
    var session: String

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        for line in try connection.send(Request(.explain(session: session))).explanation ?? [] { print(line, to: &output) }
        return 0
    }
}
