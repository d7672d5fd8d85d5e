import ArgumentParser

/// `audiosessionctl route list|select|connect|disconnect`: ports and routes.
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Show and change ports and routes.",
        subcommands: [
            RouteListCommand.self, RouteSelectCommand.self, RouteConnectCommand.self, RouteDisconnectCommand.self,
        ],
        defaultSubcommand: RouteListCommand.self
    )
}
