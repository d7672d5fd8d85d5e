import Foundation

/// `met` or `MISSED`, for a figure against its target.
func verdict(_ met: Bool?) -> String {
    guard let met else { return "n/a" }
    return met ? "met" : "MISSED"
}

func mb(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MB", megabytes($0)) } ?? "n/a" }

func report(_ results: Results) {
    print("audiosessiond daemon benchmark: private PulseAudio 16 servers, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    let restore = options.streamRestore ? ", module-stream-restore loaded" : ""
    print("servers: new streams start on `\(options.defaultSink)` (their default sink)\(restore)")
    let built = (try? FileManager.default.attributesOfItem(atPath: daemonPath)[.modificationDate] as? Date).map { "\($0)" } ?? "?"
    print("daemon: \(daemonPath) (built \(built))\(daemonArguments.isEmpty ? "" : ", with " + daemonArguments.joined(separator: " "))")
    print("Times in ms as an independent observer client sees them; p50 / p99 by nearest rank (p99 of < 100 trials")
    print("is the slowest; the trials column says how many). Ratios are daemon / module-role-cork. The floor is a")
    print("minimal external client (see docs).")
    print("")
    reportUnawareCall(results)
    reportActivate(results)
    reportScaling(results)
    reportMemory(results)
    reportOverlap(results)
    reportPlayerPause(results)
}

private func reportPlayerPause(_ results: Results) {
    print("")
    print("6. Player paused (mpv with mpv-mpris, on a private session bus): phone stream's `new` event -> mpv's")
    print("   stream seen silenced, and -> mpv's PlaybackStatus `Paused` (its PropertiesChanged signal)")
    guard let (muted, paused) = results.playerPause else { return print("   not measured") }
    var table = Table(header: ["", "trials", "p50", "p99"])
    for (label, t) in [("stream silenced", muted), ("player paused", paused)] {
        table.add([label, "\(t.count)" + (t.failures > 0 ? " (\(t.failures) lost)" : ""), ms(t.p50), ms(t.p99)])
    }
    print(table.render())
}

private func reportOverlap(_ results: Results) {
    print("")
    print("5. Audible overlap: music heard at the sink after the phone stream's first sample (1 s window; music tone")
    print("   on the left channel, phone tone on the right; a pipe sink, read from its FIFO)")
    guard let (daemon, module) = results.overlap else { return print("   not measured") }
    var table = Table(header: ["", "trials", "p50", "p99", "p50 vs module", "target", ""])
    let r50 = ratio(daemon.p50, module.p50)
    table.add([
        Contender.daemon.name, "\(daemon.count)", ms(daemon.p50), ms(daemon.p99), times(r50), "<= 1.3×",
        verdict(r50.map { $0 <= 1.3 }),
    ])
    table.add([Contender.module.name, "\(module.count)", ms(module.p50), ms(module.p99), "", "", ""])
    print(table.render())
}

private func reportUnawareCall(_ results: Results) {
    print("1. Unaware call: phone stream's `new` event -> the music stream seen silenced (1 music stream)")
    guard let timings = results.unaware[1] else { return print("   not measured\n") }
    var table = Table(header: ["", "trials", "p50", "p99", "p50 vs module", "p99 vs module", "target", ""])
    let module = timings[Contender.module.rawValue]
    for contender in Contender.allCases {
        let t = timings[contender.rawValue]
        let r50 = ratio(t.p50, module.p50)
        let r99 = ratio(t.p99, module.p99)
        let isDaemon = contender == .daemon
        table.add([
            contender.name, "\(t.count)" + (t.failures > 0 ? " (\(t.failures) lost)" : ""), ms(t.p50), ms(t.p99),
            contender == .module ? "" : times(r50), contender == .module ? "" : times(r99),
            isDaemon ? "<= 1.3×" : "", isDaemon ? verdict(r50.flatMap { a in r99.map { a <= 1.3 && $0 <= 1.3 } }) : "",
        ])
    }
    print(table.render())
    print("")
}

private func reportActivate(_ results: Results) {
    print("2. Phone client's `activate` request -> all N client-owned music streams seen silenced; against")
    print("   module-role-cork's phone stream `new` -> all N music streams muted (same N, trials alternating),")
    print("   and, for context, module-role-cork from the phone app's call to open its stream (connecting included)")
    var table = Table(header: [
        "N", "daemon p50", "daemon p99", "module p50", "module p99", "ratio p50", "ratio p99", "target", "",
        "module from open p50", "p99",
    ])
    for n in sizes {
        guard let (daemon, module, fromOpen) = results.activate[n] else { continue }
        let r50 = ratio(daemon.p50, module.p50)
        let r99 = ratio(daemon.p99, module.p99)
        table.add([
            "\(n)", ms(daemon.p50), ms(daemon.p99), ms(module.p50), ms(module.p99), times(r50), times(r99),
            "< 1×", verdict(r50.flatMap { a in r99.map { a < 1 && $0 < 1 } }), ms(fromOpen.p50), ms(fromOpen.p99),
        ])
    }
    print(table.render())
    print("")
}

private func reportScaling(_ results: Results) {
    print("3. N unaware music streams (one app), then a phone stream: `new` -> all N seen silenced")
    var table = Table(header: ["N", "", "p50", "p99", "p50 / N", "p50 vs module", "p99 vs module", "target", ""])
    for n in sizes {
        guard let timings = results.unaware[n] else { continue }
        let module = timings[Contender.module.rawValue]
        for contender in Contender.allCases {
            let t = timings[contender.rawValue]
            let r50 = ratio(t.p50, module.p50)
            let r99 = ratio(t.p99, module.p99)
            let target = contender == .daemon && n == 100
            table.add([
                "\(n)", contender.name, ms(t.p50), ms(t.p99), us(t.p50.map { $0 / Double(n) }),
                contender == .module ? "" : times(r50), contender == .module ? "" : times(r99),
                target ? "<= 1.1×" : "", target ? verdict(r50.flatMap { a in r99.map { a <= 1.1 && $0 <= 1.1 } }) : "",
            ])
        }
    }
    if let one = results.unaware[1], let hundred = results.unaware[100] {
        for contender in Contender.allCases {
            let each = hundred[contender.rawValue].p50.flatMap { a in one[contender.rawValue].p50.map { (a - $0) / 99 } }
            table.add(["+1 stream", contender.name, "", "", us(each), "", "", "", ""])
        }
    }
    print(table.render())
    print("   (+1 stream: (p50 at 100 - p50 at 1) / 99, the cost of each further stream)")
    table = Table(header: ["N", "daemon CPU per call", "floor CPU per call", "ratio"])
    for n in sizes {
        guard let cpu = results.cpuPerCall[n] else { continue }
        table.add(["\(n)", ms(cpu.daemon), ms(cpu.floor), times(ratio(cpu.daemon, cpu.floor))])
    }
    print(table.render())
    print("   (CPU time of the process, all threads, per call: reacting to the phone stream, then to its end)")
    print("")
}

private func reportMemory(_ results: Results) {
    print("4. Daemon memory (/proc/PID/status) and start-up (exec -> control socket accepts a connection)")
    var table = Table(header: ["", "VmRSS", "anonymous", "file-backed", "target", ""])
    table.add([
        "just started (1 s)", mb(results.started?.resident), mb(results.started?.anonymous), mb(results.started?.file),
        "", "",
    ])
    table.add([
        "idle, after a call of each kind", mb(results.idle?.resident), mb(results.idle?.anonymous), mb(results.idle?.file),
        "<= 15 MB", verdict(results.idle.map { megabytes($0.resident) <= 15 }),
    ])
    table.add([
        "\(results.sessions) connections, no request", mb(results.connected?.resident), mb(results.connected?.anonymous),
        mb(results.connected?.file), "", "",
    ])
    table.add([
        "\(results.sessions) sessions", mb(results.loaded?.resident), mb(results.loaded?.anonymous), mb(results.loaded?.file),
        "<= 30 MB", verdict(results.loaded.map { megabytes($0.resident) <= 30 }),
    ])
    if let idle = results.idle, let connected = results.connected, let loaded = results.loaded, results.sessions > 0 {
        let count = Double(results.sessions)
        let perConnection = Double(connected.resident - idle.resident) / 1024 / count
        table.add([
            "per connection", String(format: "%.1f KB", perConnection),
            String(format: "%.1f KB", Double(connected.anonymous - idle.anonymous) / 1024 / count), "", "<= 4 KB",
            verdict(perConnection <= 4),
        ])
        table.add([
            "per session on top", String(format: "%.1f KB", Double(loaded.resident - connected.resident) / 1024 / count),
            String(format: "%.1f KB", Double(loaded.anonymous - connected.anonymous) / 1024 / count), "", "", "",
        ])
    }
    print(table.render())
    print("   (idle: 1 s after an unaware call and a client's call session; then \(results.sessions) client connections")
    print("   from this one process, then on each hello + setCategory; open-file limit \(results.fileLimit), raised to the")
    print("   hard limit and inherited by the daemon)")
    table = Table(header: ["", "figure", "target", ""])
    let startup = median(results.startup)
    table.add(["start-up, median of \(results.startup.count)", ms(startup), "<= 50 ms", verdict(startup.map { $0 <= 50 })])
    table.add(["start-up, slowest", ms(results.startup.max()), "", ""])
    print(table.render())
}
