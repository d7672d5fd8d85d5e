import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol

/// `audiosessionctl route disconnect PORT`: a simulated port goes away (POLICY R4).
struct RouteDisconnectCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect",
        abstract: "Disconnect a simulated port; playback routed to it stops."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The port that goes away.")
    var port: Port

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.disconnectPort(port: port.rawValue)))
        return 0
    }
}
