import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl unlock`: the screen is unlocked.
struct UnlockCommand: ControlCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", abstract: "Unlock the screen.")

    @OptionGroup var connection: ConnectionOptions

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.setScreenLock(locked: false)))
        return 0
    }
}
