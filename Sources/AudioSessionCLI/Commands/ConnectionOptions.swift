import ArgumentParser
import AudioSessionProtocol
import Foundation

/// Where the daemon listens; shared by every subcommand that talks to it.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's control socket.", valueName: "path"))
    var socket: String = ConnectionOptions.defaultSocketPath

    /// The daemon's own default (`DaemonOptions.defaultSocketPath`), worked out the same way here so that the
    /// tool does not link the daemon: `$AUDIOSESSIOND_SOCKET`, else `$XDG_RUNTIME_DIR/audiosessiond/control`, or
    /// the same under `/tmp/audiosessiond-UID` for a user without a runtime directory.
    static var defaultSocketPath: String {
        // The same variable the client library reads, so that the tool and the apps find the same daemon.
        if let explicit = ProcessInfo.processInfo.environment["AUDIOSESSIOND_SOCKET"], !explicit.isEmpty {
            return explicit
        }
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/tmp/audiosessiond-\(getuid())"
        return runtime + "/audiosessiond/control"
    }

    /// A connection to the daemon; `DaemonUnreachable` (exit status 3) when there is none to reach.
    func connect() throws -> ControlConnection {
        do {
            return try ControlConnection(path: socket)
        } catch {
            throw DaemonUnreachable(description: "\(error)")
        }
    }

    /// Sends one request on a connection of its own; its result, or its error as the daemon worded it.
    @discardableResult
    func send(_ request: Request) throws -> ReplyResult { try connect().result(request) }
}
