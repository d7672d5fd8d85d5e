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
        try connection.send(Request(.setSilentSwitch(position)))
        return 0
    }
}
