import Foundation

/// The configurations of benchmarks 1 and 3, in the order their trials run.
enum Contender: Int, CaseIterable {
    case daemon, module, floorSequential, floorPipelined

    var name: String {
        switch self {
        case .daemon: "audiosessiond"
        case .module: "module-role-cork"
        case .floorSequential: "floor, awaited writes"
        case .floorPipelined: "floor, pipelined writes"
        }
    }
}

/// The command line: `--quick` (a few trials, to try the benchmark out), `--daemon PATH` (another daemon
/// binary), `--daemon-arg ARG` (repeatable: an argument added to the daemon's, e.g. `--log-level=warning`),
/// `--json FILE` (the figures of issue 12's table as one JSON object, see Figures.swift), `--only PARTS` (a
/// comma-separated list of `Part`s, to look at one figure while changing the daemon; the rest is "not measured"),
/// `--stream-restore` (module-stream-restore on the three servers, as a desktop PulseAudio loads it),
/// `--default-sink NAME` (the servers' default sink: `headphones`, where the daemon routes, or `speaker`).
struct Options {
    /// The benchmark's parts, in the order they run.
    enum Part: String, CaseIterable {
        case unaware, activate, overlap, memory, players
    }

    var quick = false
    var parts = Set(Part.allCases)
    var streamRestore = false
    /// Where a new stream starts on the three servers. The headphones by default: the daemon's policy routes
    /// there while they are connected, as a desktop's server (module-switch-on-connect) or a phone's (one sink,
    /// its headphone port) starts a stream; with `speaker`, the daemon moves each new stream (docs/BENCHMARKS.md).
    var defaultSink = "headphones"
    var daemon: String?
    var daemonArguments: [String] = []
    var json: String?

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--stream-restore": streamRestore = true
            case "--default-sink" where ["headphones", "speaker"].contains(rest.first): defaultSink = rest.popFirst()!
            case "--daemon": daemon = rest.popFirst()
            case "--daemon-arg": rest.popFirst().map { daemonArguments.append($0) }
            case "--json" where rest.first != nil: json = rest.popFirst()
            case "--only" where rest.first.map(Self.parts) != nil: parts = Self.parts(rest.popFirst()!)!
            default:
                print("usage: DaemonBenchmark [--quick] [--daemon PATH] [--daemon-arg ARG]... [--json FILE] [--only PARTS]")
                print("       [--stream-restore] [--default-sink headphones|speaker]")
                print("       PARTS: a comma-separated list of " + Part.allCases.map(\.rawValue).joined(separator: ", "))
                print("       DaemonBenchmark --check-json FILE")
                exit(2)
            }
        }
    }

    /// The parts named in `list`; nil when one of them is not a part.
    private static func parts(_ list: String) -> Set<Part>? {
        let names = list.split(separator: ",").map { Part(rawValue: String($0)) }
        guard !names.isEmpty, !names.contains(nil) else { return nil }
        return Set(names.compactMap { $0 })
    }
}

struct Results {
    var unaware: [Int: [Timings]] = [:]
    /// CPU milliseconds per call (the mute and, after it, the unmute) for the daemon and the floor client.
    var cpuPerCall: [Int: (daemon: Double?, floor: Double?)] = [:]
    var activate: [Int: (daemon: Timings, module: Timings, moduleFromOpen: Timings)] = [:]
    /// Milliseconds of music heard at the sink's monitor after the phone's first sample, per trial.
    var overlap: (daemon: Timings, module: Timings)?
    var startup: [Double] = []
    /// Section 6b: from the phone stream's `new` event to mpv's stream muted, and to mpv's `Paused`.
    var playerPause: (muted: Timings, paused: Timings)?
    /// 1 s after start.
    var started: Memory?
    /// 1 s after a call of each kind (`warmUp`).
    var idle: Memory?
    var connected: Memory?
    var loaded: Memory?
    var sessions = 0
    var fileLimit: UInt64 = 0
}
