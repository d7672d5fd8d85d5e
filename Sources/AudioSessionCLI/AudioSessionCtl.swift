import ArgumentParser

/// `audiosessionctl`: control and inspect audio session policy.
public struct AudioSessionCtl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audiosessionctl",
        abstract: "Control and inspect the audio session policy.",
        subcommands: [ReplayCommand.self]
    )

    public init() {}
}
