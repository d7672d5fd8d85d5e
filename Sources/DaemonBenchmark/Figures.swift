import Foundation

/// Issue 12's table as one JSON object (`--json FILE`): each figure's ratio under its key, the absolute values
/// it was computed from beside it, all from this one run (p50 and p99 are nearest-rank over the run's
/// trials). A figure that could not be computed is `null` and named, with the reason, in `missing`; nothing
/// is filled in from elsewhere. docs/BENCHMARKS.md lists the keys.
struct Figures {
    /// The figures every file must have (a number, or null and named in `missing`), in the table's order.
    static let required = [
        "unaware_call_p50_vs_floor", "unaware_call_p99_vs_floor",
        "activate_vs_module_open_n1", "activate_vs_module_open_n10", "activate_vs_module_open_n100",
        "streams100_vs_floor_pipelined", "cpu_per_call_vs_floor",
        "rss_idle_mb", "rss_1000_sessions_mb", "kb_per_connection", "startup_ms",
        "audible_overlap_vs_module",
    ]

    private(set) var entries: [(key: String, value: Double?)] = []
    private(set) var missing: [(key: String, reason: String)] = []

    /// Adds `key`; a nil `value` is recorded in `missing` with `reason`.
    mutating func add(_ key: String, _ value: Double?, missing reason: @autoclosure () -> String = "not measured in this run") {
        let finite = value.flatMap { $0.isFinite ? $0 : nil }
        entries.append((key, finite))
        if finite == nil { missing.append((key, reason())) }
    }

    /// `a / b`, or nil with the reason when one is missing or `b` is zero.
    mutating func addRatio(_ key: String, _ a: Double?, over b: Double?, _ bName: String) {
        let reason = b == 0 ? "\(bName) was 0: a ratio to zero is undefined (see the absolute values)" : "not measured in this run"
        add(key, ratio(a, b), missing: reason)
    }

    init(_ results: Results) {
        let one = results.unaware[1]
        let daemon1 = one?[Contender.daemon.rawValue]
        let floor1 = one?[Contender.floorSequential.rawValue]
        add("unaware_call_p50_ms", daemon1?.p50)
        add("unaware_call_p99_ms", daemon1?.p99)
        add("floor_unaware_call_p50_ms", floor1?.p50)
        add("floor_unaware_call_p99_ms", floor1?.p99)
        add("module_unaware_call_p50_ms", one?[Contender.module.rawValue].p50)
        addRatio("unaware_call_p50_vs_floor", daemon1?.p50, over: floor1?.p50, "the floor's p50")
        addRatio("unaware_call_p99_vs_floor", daemon1?.p99, over: floor1?.p99, "the floor's p99")

        for n in sizes {
            let activate = results.activate[n]
            add("activate_n\(n)_p50_ms", activate?.daemon.p50)
            add("module_open_n\(n)_p50_ms", activate?.moduleFromOpen.p50)
            addRatio("activate_vs_module_open_n\(n)", activate?.daemon.p50, over: activate?.moduleFromOpen.p50, "the module's p50")
        }

        let hundred = results.unaware[100]
        let daemon100 = hundred?[Contender.daemon.rawValue].p50
        let floor100 = hundred?[Contender.floorPipelined.rawValue].p50
        add("streams100_p50_ms", daemon100)
        add("floor_pipelined_streams100_p50_ms", floor100)
        addRatio("streams100_vs_floor_pipelined", daemon100, over: floor100, "the floor's p50")

        let cpu = results.cpuPerCall[1]
        add("cpu_per_call_ms", cpu?.daemon)
        add("floor_cpu_per_call_ms", cpu?.floor)
        addRatio("cpu_per_call_vs_floor", cpu?.daemon, over: cpu?.floor, "the floor's CPU time")

        add("rss_idle_mb", results.idle.map { megabytes($0.resident) })
        add("rss_started_mb", results.started.map { megabytes($0.resident) })
        add("rss_1000_sessions_mb", results.loaded.map { megabytes($0.resident) })
        var perConnection: Double?
        if let idle = results.idle, let connected = results.connected, results.sessions > 0 {
            perConnection = Double(connected.resident - idle.resident) / 1024 / Double(results.sessions)
        }
        add("kb_per_connection", perConnection)
        add("startup_ms", median(results.startup))

        let overlap = results.overlap
        add("audible_overlap_ms", overlap?.daemon.p50)
        add("module_audible_overlap_ms", overlap?.module.p50)
        add("audible_overlap_p99_ms", overlap?.daemon.p99)
        add("module_audible_overlap_p99_ms", overlap?.module.p99)
        add("audible_overlap_trials_heard", overlap.map { Double($0.daemon.values.filter { $0 > 0 }.count) })
        add("module_audible_overlap_trials_heard", overlap.map { Double($0.module.values.filter { $0 > 0 }.count) })
        addRatio("audible_overlap_vs_module", overlap?.daemon.p50, over: overlap?.module.p50, "module-role-cork's overlap")

        add("player_stream_muted_p50_ms", results.playerPause?.muted.p50)
        add("player_paused_p50_ms", results.playerPause?.paused.p50)
        add("player_paused_p99_ms", results.playerPause?.paused.p99)
    }

    /// The JSON text: the figures, `missing`, and `run` (what was measured, on what).
    func json(run: [(String, String)]) -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.6g", $0) } ?? "null" }
        var lines = entries.map { "  \(quoted($0.key)): \(number($0.value))" }
        let reasons = missing.map { "    {\"key\": \(quoted($0.key)), \"reason\": \(quoted($0.reason))}" }
        lines.append("  \"missing\": [" + (reasons.isEmpty ? "]" : "\n" + reasons.joined(separator: ",\n") + "\n  ]"))
        lines.append("  \"run\": {" + run.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}")
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }
}

/// A JSON string literal of `text`.
func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// Writes this run's figures to `path`.
func writeFigures(_ results: Results, to path: String) throws {
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init)
    let run: [(String, String)] = [
        ("quick", quick ? "true" : "false"),
        ("cores", "\(ProcessInfo.processInfo.activeProcessorCount)"),
        ("load_average_1min_at_end", load ?? "null"),
        ("daemon", quoted(daemonPath)),
        ("daemon_arguments", "[" + daemonArguments.map(quoted).joined(separator: ", ") + "]"),
        ("unaware_trials_n1", "\(unawareTrials[1]!)"),
        ("activate_trials_n1", "\(activateTrials[1]!)"),
        ("overlap_trials", "\(overlapTrials)"),
        ("startup_runs", "\(startupRuns)"),
    ]
    try Figures(results).json(run: run).write(toFile: path, atomically: true, encoding: .utf8)
}

/// `--check-json FILE`: every required key is present and is a number, or is null and named in `missing`.
/// Prints what is wrong; returns whether the file passed.
func checkFiguresFile(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("\(path): cannot be read")
        return false
    }
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
        print("\(path): not a JSON object")
        return false
    }
    let missing = Set(((object["missing"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String })
    var problems: [String] = []
    var measured = 0
    for key in Figures.required {
        switch object[key] {
        case nil: problems.append("\(key): absent")
        case is NSNull: if !missing.contains(key) { problems.append("\(key): null but not named in \"missing\"") }
        // A JSON true or false is an NSNumber too, of type "c".
        case let number as NSNumber where String(cString: number.objCType) != "c": measured += 1
        default: problems.append("\(key): not a number")
        }
    }
    for problem in problems { print("\(path): \(problem)") }
    print("\(path): \(problems.isEmpty ? "ok" : "FAILED"), \(measured) of \(Figures.required.count) figures measured"
        + (missing.isEmpty ? "" : ", missing: " + missing.sorted().joined(separator: ", ")))
    return problems.isEmpty
}
