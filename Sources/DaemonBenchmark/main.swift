import Foundation

// The daemon against module-role-cork on real private PulseAudio servers, and the daemon's memory and start-up
// time. Figures are printed, never asserted. The machine is small and noisy, so the contenders run side by side
// in the same run and their trials alternate. See docs/BENCHMARKS.md.
//   swift build -c release && swift run -c release DaemonBenchmark [--quick] [--daemon PATH] [--daemon-arg ARG]...
//       [--json FILE] [--only unaware,activate,overlap,memory,players] [--stream-restore]
//       [--default-sink headphones|speaker]
//   DaemonBenchmark --check-json FILE   (every figure's key is there, a number or named in "missing")

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--reactor" {
    await reactorMain(server: CommandLine.arguments[2])
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--check-json" {
    exit(checkFiguresFile(CommandLine.arguments[2]) ? 0 : 1)
}
Cleanup.installSignalHandling()
let options = Options(CommandLine.arguments.dropFirst())
let quick = options.quick
let fileLimit = raiseFileLimit()

/// This binary, and the daemon: the one built beside it unless `--daemon` names another.
let benchmarkPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let daemonPath = options.daemon
    ?? URL(fileURLWithPath: benchmarkPath).deletingLastPathComponent().appendingPathComponent("audiosessiond").path
guard FileManager.default.isExecutableFile(atPath: daemonPath) else {
    print("no daemon at \(daemonPath): build it in the same configuration first, `swift build -c release`")
    exit(2)
}
let daemonArguments = options.daemonArguments

let sizes = [1, 10, 100]
// The unaware call with one music stream has issue 12's p99: 200 trials make it the 198th of 200 by nearest rank,
// not the slowest trial of the run, which one stall of a shared machine decides alone.
let unawareTrials = quick ? [1: 5, 10: 3, 100: 3] : [1: 200, 10: 40, 100: 40]
let activateTrials = quick ? [1: 3, 10: 3, 100: 3] : [1: 50, 10: 40, 100: 40]
let overlapTrials = quick ? 3 : 15
let startupRuns = quick ? 3 : 15
let playerTrials = quick ? 3 : 20
let sessionCount = 1_000

func run() async throws -> Results {
    var results = Results()
    var completed = false
    results.fileLimit = fileLimit
    let began = ContinuousClock.now
    progress("starting three private PulseAudio servers: audiosessiond's, module-role-cork's, the floor client's")
    // A desktop PulseAudio saves each stream's values (module-stream-restore); the daemon then reads a new stream's
    // saved entry before it decides. Loaded on the three servers alike, or on none.
    let restore = options.streamRestore ? ["module-stream-restore"] : []
    let sink = options.defaultSink
    let daemonRig = try await Rig.start("daemon", extraModules: restore, defaultSink: sink)
    defer { daemonRig.shutDown(keepingLogs: !completed) }
    let moduleRig = try await Rig.start("module", extraModules: restore + [Rig.roleCork], defaultSink: sink)
    defer { moduleRig.shutDown(keepingLogs: !completed) }
    let floorRig = try await Rig.start("floor", extraModules: restore, defaultSink: sink)
    defer { floorRig.shutDown(keepingLogs: !completed) }
    try await daemonRig.startDaemon(daemonPath, arguments: daemonArguments)
    try await floorRig.startReactor(benchmarkPath)

    let parts = options.parts
    if parts.contains(.unaware) { try await measureUnawareCalls(daemonRig, moduleRig, floorRig, into: &results) }
    floorRig.shutDown()
    if parts.contains(.activate) { try await measureActivation(daemonRig, moduleRig, into: &results) }
    if parts.contains(.overlap) { try await measureAudibleOverlap(daemonRig, moduleRig, into: &results) }
    moduleRig.shutDown()
    daemonRig.stopDaemon()
    if parts.contains(.memory) { try await measureMemoryAndStartup(daemonRig, into: &results) }
    if parts.contains(.players) { try await measurePlayerPause(daemonPath, trials: playerTrials, into: &results) }
    progress("done in \(ms(milliseconds(.now - began)))")
    completed = true
    return results
}

do {
    let results = try await run()
    Cleanup.runAll()
    report(results)
    if let path = options.json {
        try writeFigures(results, to: path)
        progress("figures written to \(path)")
    }
} catch {
    Cleanup.runAll()
    print("benchmark failed: \(error)\n(logs of the servers and the daemon: \(Rig.logDirectory))")
    exit(1)
}
