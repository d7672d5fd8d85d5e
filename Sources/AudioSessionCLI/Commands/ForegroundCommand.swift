import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol

/// `audiosessionctl foreground SESSION`: the session's app comes to the foreground.
struct ForegroundCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "foreground",
        abstract: "Bring a session's app to the foreground."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The session: its number or its app's name.")
    var session: String

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.setAppState(session: session, state: .foreground)))
        return 0
    }
}
