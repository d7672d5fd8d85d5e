import ArgumentParser
import Foundation

/// `audiosessionctl`: control and inspect audio session policy.
public struct AudioSessionCtl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audiosessionctl",
        abstract: "Control and inspect the audio session policy.",
        discussion: """
            Talks to audiosessiond on its control socket: $AUDIOSESSIOND_SOCKET, else \
            $XDG_RUNTIME_DIR/audiosessiond/control, or --socket. Results go to standard output; errors go to \
            standard error as one line, `audiosessionctl: what went wrong; what to do`. Colour is used only on a \
            terminal, and never when NO_COLOR is set to a non-empty value. docs/CLI.md has every subcommand with \
            examples.

            \(ExitStatus.help)
            """,
        subcommands: [
            StatusCommand.self, WatchCommand.self, SwitchCommand.self, LockCommand.self, UnlockCommand.self,
            ForegroundCommand.self, BackgroundCommand.self, RouteCommand.self, ExplainCommand.self, RunCommand.self,
            ReplayCommand.self, JournalCommand.self, VolumeCommand.self, PlayCommand.self,
            RecordCommand.self, ResumeCommand.self,
        ]
    )

    public init() {}
}

extension AudioSessionCtl {
    /// Runs the tool with `arguments` (without the program's name), writing to `output` and `errors` what it
    /// writes to standard output and standard error; returns its exit status (`ExitStatus`, or the status of
    /// the program `run` started).
    public static func exitStatus(
        running arguments: [String],
        output: inout some TextOutputStream,
        errors: inout some TextOutputStream
    ) -> Int32 {
        let parsed: any ParsableCommand
        do {
            parsed = try parseAsRoot(arguments)
        } catch {
            return reportArgumentError(error, arguments: arguments, output: &output, errors: &errors)
        }
        do {
            if let control = parsed as? any ControlCommand {
                return try control.perform(output: &output, errors: &errors)
            }
            var command = parsed
            try command.run()
            return ExitStatus.success.rawValue
        } catch let status as ExitCode {
            // Thrown by a command that has already said why (a replay prints its failures).
            return status.rawValue
        } catch {
            // A command of argument-parser's own (help, a group without a subcommand) throws its errors, which
            // only it can word; so do the checks of arguments that a command makes as it starts.
            let ours = parsed is any ControlCommand || error is DaemonUnreachable
            if !ours || error is ValidationError || error is CleanExit {
                return reportArgumentError(error, arguments: arguments, output: &output, errors: &errors)
            }
            print(errorLine(error), to: &errors)
            return ExitStatus(for: error).rawValue
        }
    }

    /// The process's entry point: the tool with its command line, standard output and standard error.
    public static func runAsProcess() -> Never {
        var output = StandardOutput()
        var errors = StandardError()
        let status = exitStatus(running: Array(CommandLine.arguments.dropFirst()), output: &output, errors: &errors)
        fflush(nil)
        Foundation.exit(status)
    }

    /// `audiosessionctl: ...` on one line, however many lines the error's own text has.
    static func errorLine(_ error: any Error) -> String { "audiosessionctl: " + oneLine("\(error)") }

    /// Text of several lines as one: lines joined by `; `, a list of `- item` lines as `item, item`.
    static func oneLine(_ text: String) -> String {
        var parts: [String] = []
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if line.hasPrefix("- "), let last = parts.popLast() {
                let item = line.dropFirst(2)
                parts.append(last.hasSuffix(":") ? "\(last) \(item)" : "\(last), \(item)")
            } else {
                parts.append(line)
            }
        }
        return parts.joined(separator: "; ")
    }

    /// Help goes to `output` with status 0. A usage error is one line naming the subcommand's help, status 2;
    /// anything else argument-parser reports keeps its own status.
    private static func reportArgumentError(
        _ error: any Error,
        arguments: [String],
        output: inout some TextOutputStream,
        errors: inout some TextOutputStream
    ) -> Int32 {
        let status = exitCode(for: error)
        if status == .success {
            let text = fullMessage(for: error)
            if !text.isEmpty { print(text, to: &output) }
            return ExitStatus.success.rawValue
        }
        let message = oneLine(message(for: error))
        guard status == .validationFailure else {
            if !message.isEmpty { print("audiosessionctl: \(message)", to: &errors) }
            return status.rawValue
        }
        let what = message.prefix(1).lowercased() + message.dropFirst()
        print("audiosessionctl: \(what); see `\(commandPath(arguments)) --help`", to: &errors)
        return ExitStatus.usage.rawValue
    }

    /// `audiosessionctl route select`: the subcommands that `arguments` name, as far as they name any.
    static func commandPath(_ arguments: [String]) -> String {
        var command: any ParsableCommand.Type = AudioSessionCtl.self
        var names = [command._commandName]
        for argument in arguments {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == argument }) else {
                break
            }
            command = next
            names.append(argument)
        }
        return names.joined(separator: " ")
    }
}
