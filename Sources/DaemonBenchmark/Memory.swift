import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process's resident memory from /proc/PID/status: VmRSS, and its anonymous (heap, stacks) and
/// file-backed (mapped libraries, mostly shared with other Swift processes) parts, in bytes.
struct Memory {
    var resident = 0
    var anonymous = 0
    var file = 0

    init?(of pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            switch fields[0] {
            case "VmRSS:": resident = kilobytes * 1024
            case "RssAnon:": anonymous = kilobytes * 1024
            case "RssFile:": file = kilobytes * 1024
            default: break
            }
        }
    }
}

func megabytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

/// Raises this process's open-file limit to its hard limit (children inherit it); returns the soft limit now.
func raiseFileLimit() -> UInt64 {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return UInt64(limit.rlim_cur)
}

/// Benchmark 4a: from just before the daemon is exec'd until its socket accepts a connection (polled with
/// connect every 1 ms), in milliseconds; the daemon is stopped afterwards.
func startupTime(_ rig: Rig, daemonPath: String, arguments: [String], run: Int) throws -> Double {
    let socket = rig.server.directory + "/startup-\(run)"
    let begun = ContinuousClock.now
    let process = try rig.spawnDaemon(daemonPath, socket: socket, arguments: arguments)
    let token = Cleanup.register { stop(process) }
    defer {
        stop(process)
        Cleanup.done(token)
    }
    while ControlClient.tryConnect(socket) == nil {
        guard process.isRunning, ContinuousClock.now - begun < .seconds(10) else {
            throw BenchError("the daemon did not come up within 10 s (run \(run))")
        }
        usleep(1000)
    }
    return milliseconds(.now - begun)
}

/// Benchmark 4b: a session on each of `clients` (connections to the running daemon): hello and setCategory,
/// sent together, then both replies read.
func startSessions(_ clients: [ControlClient]) throws {
    for (i, client) in clients.enumerated() {
        let hello = try client.send(#""op":"hello","app":"app\#(i)""#)
        let category = try client.send(#""op":"setCategory","category":"playback","options":["mixWithOthers"]"#)
        try client.reply(to: hello)
        try client.reply(to: category)
    }
}

/// CPU time `pid` has used so far (all its threads, from /proc/PID/task/*/schedstat), in milliseconds.
func cpuMilliseconds(of pid: Int32) -> Double? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    var nanoseconds = 0.0
    for task in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
            let first = text.split(separator: " ").first, let value = Double(first)
        else { continue }
        nanoseconds += value
    }
    return nanoseconds / 1e6
}
