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
        try connection.send(.port(.selectOutput, port))
        return 0
    }
}

extension Request {
    /// `selectOutput`, `connectPort` or `disconnectPort`.
    static func port(_ op: Operation, _ port: Port) -> Request {
        var request = Request(op: op)
        request.port = port.rawValue
        return request
    }
}
