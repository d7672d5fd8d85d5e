import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol

/// `audiosessionctl route select PORT`: the user picks an output for every session (POLICY R3).
struct RouteSelectCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Select an available output port for every session, as a route picker does."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "An available output port.")
    var port: Port

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.selectOutput(port: port.rawValue)))
        return 0
    }
}
