import ArgumentParser
import AudioSessionPolicy
import AudioSessionProtocol

/// `audiosessionctl switch ring|silent`: the Ring/Silent switch (POLICY O4).
struct SwitchCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "switch",
        abstract: "Set the Ring/Silent switch; silent silences ambient and soloAmbient sessions."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The switch's position.")
    var position: SilentSwitch

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        var request = Request(op: .setSilentSwitch)
        request.position = position
        try connection.send(request)
        return 0
    }
}
