import ArgumentParser
import Foundation

/// A subcommand that talks to the daemon. Its work writes to any output, so tests run it as the tool does;
/// errors become one line, `audiosessionctl: ...`, and exit status 1.
protocol ControlCommand: ParsableCommand {
    /// Does the command's work; returns the exit status. A thrown error is reported by `execute`.
    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32
}

extension ControlCommand {
    /// Runs the command, reporting a thrown error as one line on `errors`; returns the exit status.
    func execute(output: inout some TextOutputStream, errors: inout some TextOutputStream) -> Int32 {
        do {
            return try perform(output: &output, errors: &errors)
        } catch {
            print("audiosessionctl: \(error)", to: &errors)
            return 1
        }
    }

    func run() throws {
        var output = StandardOutput()
        var errors = StandardError()
        let status = execute(output: &output, errors: &errors)
        if status != 0 { throw ExitCode(status) }
    }
}

extension AudioSessionCtl {
    /// Parses `arguments` (without the program name) and runs the subcommand as the tool would, with its
    /// output and errors going to the given streams; returns the exit status.
    public static func execute(
        _ arguments: [String],
        output: inout some TextOutputStream,
        errors: inout some TextOutputStream
    ) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if let control = command as? any ControlCommand {
                return control.execute(output: &output, errors: &errors)
            }
            try command.run()
            return 0
        } catch {
            let message = fullMessage(for: error)
            if !message.isEmpty { print(message, to: &errors) }
            return exitCode(for: error).rawValue
        }
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { FileHandle.standardError.write(Data(string.utf8)) }
}

extension TextOutputStream {
    /// Whether this is the process's standard output (so a child may write to it directly) and a terminal.
    var isStandardOutput: Bool { self is StandardOutput }
    var isTerminal: Bool { isStandardOutput && isatty(STDOUT_FILENO) == 1 }
}
