import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl background SESSION`: the session's app goes to the background (POLICY A3, O5).
struct BackgroundCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "background",
        abstract: "Send a session's app to the background; silences it if ambient or soloAmbient."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The session: its number or its app's name.")
    var session: String

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.setAppState(session: session, state: .background)))
        return 0
    }
}
