import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl resume STREAM`: a stream that stopped when its port went away (POLICY R4) plays again on
/// the port it is on now. An app that can pause gets its sound back by pausing and playing; this is the way back
/// for one that cannot (`paplay`, a game, a web page).
struct ResumeCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Give a stream stopped by an unplugged port its sound back, on the port it is on now.",
        discussion: """
            When headphones (or any private output) go away, playback streams routed there stop and stay silent \
            until their app restarts them, so that private audio never moves to the speaker (POLICY R4). \
            `audiosessionctl status` lists such a stream as silent with the reason and its number; `resume` \
            with that number lets it be heard where it is now.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The stream's number, as `audiosessionctl status` lists it.", valueName: "stream"))
    var stream: Int

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        try connection.send(Request(.resumeStream(stream)))
        return 0
    }
}
