import ArgumentParser

/// `audiosessionctl`: control and inspect audio session policy.
public struct AudioSessionCtl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audiosessionctl",
        abstract: "Control and inspect the audio session policy.",
        subcommands: [
            StatusCommand.self, WatchCommand.self, SwitchCommand.self, LockCommand.self, UnlockCommand.self,
            ForegroundCommand.self, BackgroundCommand.self, RouteCommand.self, ExplainCommand.self, RunCommand.self,
            ReplayCommand.self, JournalCommand.self, VolumeCommand.self, PlayCommand.self,
            RecordCommand.self,
        ]
    )

    public init() {}
}
