import AudioSessionScenario
import Foundation

/// Where pictures meet the disk: the only part of `--svg` that does I/O.
enum TimelineFile {
    /// Writes `svg` to `path`, replacing what is there. A failure is one line naming the path and the system's
    /// reason: "cannot write /no/such/dir/a.svg: No such file or directory".
    static func write(_ svg: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(path) }
        defer { close(descriptor) }
        var bytes = Array(svg.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure(path) }
            bytes = bytes.dropFirst(written)
        }
    }

    private static func failure(_ path: String) -> CLIError {
        CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}

extension TimelineSVG {
    /// The picture of a scenario given as text (what `journal export` writes), replayed against the engine.
    static func draw(yaml: String, file: String) throws -> (svg: String, result: ScenarioResult) {
        let result = ScenarioRunner.run(try ScenarioLoader.parse(yaml: yaml, file: file))
        return (draw(result), result)
    }
}
