import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl lock`: the screen is locked (POLICY O5).
struct LockCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the screen; silences ambient and soloAmbient sessions."
    )

    @OptionGroup var connection: ConnectionOptions

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.setScreenLock(locked: true)))
        return 0
    }
}
