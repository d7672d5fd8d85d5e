import Foundation

/// Benchmarks 1 and 3: N unaware music streams (one app), then an unaware phone stream; the daemon, the module
/// and the floor (awaiting, then pipelining its writes) in turn.
func measureUnawareCalls(_ daemonRig: Rig, _ moduleRig: Rig, _ floorRig: Rig, into results: inout Results) async throws {
    for n in sizes {
        let (daemonMusic, d) = try await daemonRig.openStreams(n)
        let (moduleMusic, m) = try await moduleRig.openStreams(n)
        let (floorMusic, f) = try await floorRig.openStreams(n)
        try await daemonRig.settle(d)
        try await moduleRig.settle(m)
        try await floorRig.settle(f)
        let daemonCPU = cpuMilliseconds(of: daemonRig.daemon!.processIdentifier)
        let floorCPU = cpuMilliseconds(of: floorRig.reactor!.processIdentifier)
        results.unaware[n] = try await alternate(
            unawareTrials[n]!, "unaware phone stream, \(n) music",
            [
                { try await phoneStreamTrial(daemonRig, music: d) },
                { try await phoneStreamTrial(moduleRig, music: m) },
                {
                    try await floorRig.setPipelined(false)
                    return try await phoneStreamTrial(floorRig, music: f)
                },
                {
                    try await floorRig.setPipelined(true)
                    return try await phoneStreamTrial(floorRig, music: f)
                },
            ])
        let calls = Double(unawareTrials[n]!)
        results.cpuPerCall[n] = (
            cpuMilliseconds(of: daemonRig.daemon!.processIdentifier).flatMap { a in daemonCPU.map { (a - $0) / calls } },
            cpuMilliseconds(of: floorRig.reactor!.processIdentifier).flatMap { a in floorCPU.map { (a - $0) / calls / 2 } }
        )
        for group in [daemonMusic, moduleMusic, floorMusic] { group.close() }
        for rig in [daemonRig, moduleRig, floorRig] { rig.observer.unwatchAll() }
        try await Task.sleep(for: .milliseconds(700))  // the unaware sessions' grace ends
    }
}

/// Benchmark 2: N client-owned music sessions; the phone client activates. module-role-cork is timed again
/// alongside, with the same N.
func measureActivation(_ daemonRig: Rig, _ moduleRig: Rig, into results: inout Results) async throws {
    let phone = try ControlClient.connect(daemonRig.socket)
    try phone.call(#""op":"hello","app":"phone","call":true"#)
    try phone.call(#""op":"setCategory","category":"playAndRecord","mode":"voiceChat""#)
    for n in sizes {
        var clients: [ControlClient] = []
        var sessions: [Int] = []
        for i in 0..<n {
            let client = try ControlClient.connect(daemonRig.socket)
            let session = try client.call(#""op":"hello","app":"music\#(i)""#).session ?? 0
            try client.call(#""op":"setCategory","category":"playback","options":["mixWithOthers"]"#)
            clients.append(client)
            sessions.append(session)
        }
        let (daemonMusic, d) = try await daemonRig.openStreams(
            n, properties: { ["media.role": "music", "audiosession.id": "\(sessions[$0])"] })
        let (moduleMusic, m) = try await moduleRig.openStreams(n)
        try await daemonRig.settle(d)
        try await moduleRig.settle(m)
        var fromOpen = Timings()
        let timings = try await alternate(
            activateTrials[n]!, "activate request, \(n) client-owned music",
            [
                { try await activateTrial(daemonRig, phone: phone, musicClients: clients, music: d) },
                {
                    let times = try await phoneStreamTrialTimes(moduleRig, music: m)
                    fromOpen.add(times?.fromOpen)
                    return times?.fromNew
                },
            ])
        results.activate[n] = (timings[0], timings[1], fromOpen)
        // The streams go before their clients, and the daemon is given time to see that: a stream that outlives
        // its client becomes an unaware app's, found by its process, and every client here is this process.
        daemonMusic.close()
        moduleMusic.close()
        try await daemonRig.observer.waitUntilGone(d)
        for rig in [daemonRig, moduleRig] { rig.observer.unwatchAll() }
        try await Task.sleep(for: .milliseconds(200))
        clients.removeAll()
        try await Task.sleep(for: .milliseconds(200))
    }
    withExtendedLifetime(phone) {}
}

/// Benchmark 4: start-up time, then memory just started, idle after a call of each kind, with 1,000 bare
/// connections, and with 1,000 sessions.
func measureMemoryAndStartup(_ rig: Rig, into results: inout Results) async throws {
    progress("start-up time, \(startupRuns) runs")
    for run in 0..<startupRuns {
        results.startup.append(try startupTime(rig, daemonPath: daemonPath, arguments: daemonArguments, run: run))
        try await Task.sleep(for: .milliseconds(100))
    }
    progress("memory: idle, then \(sessionCount) sessions (one connection each, open-file limit \(fileLimit))")
    try await rig.startDaemon(daemonPath, arguments: daemonArguments)
    try await Task.sleep(for: .seconds(1))
    let pid = rig.daemon!.processIdentifier
    results.started = Memory(of: pid)
    // Idle is a daemon's between calls: it has answered one of each kind (the code it runs for them is resident
    // from then on; the code only start-up ran is not, docs/BENCHMARKS.md says why).
    try await warmUp(rig)
    try await Task.sleep(for: .seconds(1))
    results.idle = Memory(of: pid)
    let clients = try (0..<sessionCount).map { _ in try ControlClient.connect(rig.socket) }
    try await Task.sleep(for: .milliseconds(500))
    results.connected = Memory(of: pid)
    try startSessions(clients)
    try await Task.sleep(for: .milliseconds(500))
    results.loaded = Memory(of: pid)
    results.sessions = clients.count
    withExtendedLifetime(clients) {}
    rig.stopDaemon()
}

/// One unaware call (music, then a phone stream, on the daemon's server) and one client's call session
/// (activated, deactivated, closed), each over before this returns.
func warmUp(_ rig: Rig) async throws {
    let (music, streams) = try await rig.openStreams(1)
    try await rig.settle(streams)
    guard try await phoneStreamTrial(rig, music: streams) != nil else {
        throw BenchError("\(rig.name): the warm-up call did not silence the music")
    }
    let phone = try ControlClient.connect(rig.socket)
    try phone.call(#""op":"hello","app":"phone","call":true"#)
    try phone.call(#""op":"setCategory","category":"playAndRecord","mode":"voiceChat""#)
    try phone.call(#""op":"activate""#)
    try phone.call(#""op":"deactivate","notifyOthers":true"#)
    withExtendedLifetime(phone) {}
    music.close()
    try await rig.observer.waitUntilGone(streams)
    rig.observer.unwatchAll()
    try await Task.sleep(for: .milliseconds(700))  // the unaware sessions' grace ends
}
