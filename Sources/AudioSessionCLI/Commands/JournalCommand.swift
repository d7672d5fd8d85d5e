import ArgumentParser
import AudioSessionEventLog
import AudioSessionScenario
import Foundation

/// `audiosessionctl journal export`: the daemon's event log as a scenario.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Work with the daemon's event log.",
        subcommands: [JournalExportCommand.self]
    )
}

/// `audiosessionctl journal export [--since TIME] [--state-dir DIR] [-o FILE] [--svg FILE]`.
struct JournalExportCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write what the daemon decided as a scenario that `audiosessionctl replay` checks.",
        discussion: """
            The scenario covers one daemon run (the last one, or the one TIME falls in): its sessions as they \
            were declared, a step for each engine event, waits so that grace timers fire as they did, and \
            after each step the states and notifications the daemon produced. Events before TIME are replayed \
            to reach the state, without expectations. Limits are printed and written at the top of the file \
            (docs/STATE.md).
            """
    )

    @Option(
        help:
            "Check events from this time on: ISO 8601 (2026-01-31T12:00:00Z), seconds since 1970, or how long ago (90s, 10m, 2h, 1d)."
    )
    var since: String?

    @Option(name: .customLong("state-dir"), help: "The daemon's state directory (default: as the daemon's).")
    var stateDirectory: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the scenario to this file (default: standard output)."
    )
    var file: String?

    @Option(
        help: ArgumentHelp(
            "Also replay the exported scenario and draw it as an SVG picture into this file.",
            valueName: "file"
        )
    )
    var svg: String?

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let directory = stateDirectory ?? JournalEventLogFiles.defaultStateDirectory()
        let sinceTime = try since.map { try Self.time($0, now: Date()) }
        let (records, problems) = JournalExport.records(inStateDirectory: directory)
        for problem in problems { print("audiosessionctl: warning: \(problem)", to: &errors) }
        let result = try JournalExport.scenario(from: records, since: sinceTime, source: directory)
        for warning in result.warnings { print("audiosessionctl: limit: \(warning)", to: &errors) }
        if let file {
            try result.yaml.write(toFile: file, atomically: true, encoding: .utf8)
            print("\(file): \(result.events) events, \(result.checkedEvents) with expectations", to: &errors)
        } else {
            print(result.yaml, terminator: "", to: &output)
        }
        if let svg {
            let picture = try TimelineSVG.draw(yaml: result.yaml, file: file ?? "exported.yaml")
            try TimelineFile.write(picture.svg, to: svg)
            let outcome = picture.result.passed ? "" : "; its replay fails"
            print("\(svg): \(picture.result.timeline.count) steps drawn\(outcome)", to: &errors)
        }
        return 0
    }

    /// `--since`: an ISO 8601 time, seconds since 1970, or a duration ago.
    static func time(_ text: String, now: Date) throws -> Double {
        if let seconds = Double(text) { return seconds }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0 {
            return now.timeIntervalSince1970 - amount * unit
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        throw ValidationError(
            "--since: '\(text)' is not a time; give 2026-01-31T12:00:00Z, seconds since 1970, or 90s, 10m, 2h, 1d"
        )
    }
}
