import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol

/// `audiosessionctl route connect PORT`: a simulated port arrives (POLICY R2).
struct RouteConnectCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect a simulated port, for machines where the daemon does not detect devices."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The port that arrives (a headset brings its headsetMic).")
    var port: Port

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.connectPort(port: port.rawValue)))
        return 0
    }
}
