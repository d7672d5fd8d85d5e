import ArgumentParser
import Foundation

/// A subcommand that talks to the daemon. Its work writes to any output, so tests run it as the tool does
/// (`AudioSessionCtl.exitStatus(running:)`): errors become one line, `audiosessionctl: ...`, with the status of
/// `ExitStatus`.
protocol ControlCommand: ParsableCommand {
    /// Does the command's work; returns the exit status. A thrown error is reported by the caller.
    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32
}

extension ControlCommand {
    func run() throws {
        var output = StandardOutput()
        var errors = StandardError()
        let status: Int32
        do {
            status = try perform(output: &output, errors: &errors)
        } catch let error where !(error is ExitCode) {
            print(AudioSessionCtl.errorLine(error), to: &errors)
            status = ExitStatus(for: error).rawValue
        }
        if status != 0 { throw ExitCode(status) }
    }
}

extension AudioSessionCtl {
    /// Parses `arguments` (without the program name) and runs the subcommand as the tool would, with its
    /// output and errors going to the given streams; returns the exit status. The same as `exitStatus(running:)`.
    public static func execute(
        _ arguments: [String],
        output: inout some TextOutputStream,
        errors: inout some TextOutputStream
    ) -> Int32 {
        exitStatus(running: arguments, output: &output, errors: &errors)
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    /// Stored, so that the type is not empty: ThreadSanitizer's check of an `inout` argument of an empty struct
    /// crashes the tool (`make tsan`, docs/TESTING.md).
    private let handle = FileHandle.standardError
    mutating func write(_ string: String) { handle.write(Data(string.utf8)) }
}

extension TextOutputStream {
    /// Whether this is the process's standard output (so a child may write to it directly) and a terminal.
    var isStandardOutput: Bool { self is StandardOutput }
    var isTerminal: Bool { isStandardOutput && isatty(STDOUT_FILENO) == 1 }
}
