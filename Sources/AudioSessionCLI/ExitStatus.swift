import ArgumentParser

/// How the tool ends, the same for every subcommand (docs/CLI.md, `audiosessionctl --help`). `run` ends with its
/// program's status instead once the program has started.
enum ExitStatus: Int32 {
    case success = 0
    /// The daemon refused a request (a policy or protocol error), a replay failed, a file could not be read.
    case failure = 1
    /// The command line is wrong: argument-parser's validation, or a value a command checks itself.
    case usage = 2
    /// No daemon listens at the socket, or it went away while the tool talked to it.
    case unreachable = 3

    /// The status for an error thrown once the command line was read.
    init(for error: any Error) {
        switch error {
        case is DaemonUnreachable: self = .unreachable
        case let error as CLIError where error == .connectionClosed: self = .unreachable
        case is ValidationError: self = .usage
        default: self = .failure
        }
    }

    /// The text `audiosessionctl --help` ends with.
    static let help = """
        Exit status: 0 success; 1 a failed operation (the daemon refused a request, a replay failed); 2 bad \
        usage; 3 the daemon cannot be reached (not running, wrong --socket, or it went away). `run` exits with \
        its program's status once the program has started.
        """
}

/// The daemon cannot be reached: nothing listens at the socket, or it cannot be connected to.
struct DaemonUnreachable: Error, CustomStringConvertible {
    var description: String
}
