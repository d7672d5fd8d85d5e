import Locking
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon

/// systemd integration without systemd: the environment as libsystemd reads it, the pacing of what the daemon
/// tells, and the real daemon binary started as systemd would start it (`SystemdHarness.swift`).
@Suite(.timeLimit(.minutes(4))) struct SystemdTests {
    @Test func theEnvironmentIsReadAsLibsystemdReadsIt() throws {
        let full = try SystemdEnvironment(
            environment: [
                "NOTIFY_SOCKET": "@notify", "WATCHDOG_USEC": "30000000", "LISTEN_PID": "42", "LISTEN_FDS": "2",
            ],
            processID: 42
        )
        #expect(
            full
                == SystemdEnvironment(
                    notifySocket: "@notify",
                    watchdogTimeout: .seconds(30),
                    listeningSocket: 3,
                    passedDescriptorCount: 2
                )
        )
        // Variables meant for another process (a parent's, inherited) are not this one's.
        let foreign = try SystemdEnvironment(
            environment: [
                "NOTIFY_SOCKET": "/run/n", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "41", "LISTEN_PID": "41",
                "LISTEN_FDS": "1",
            ],
            processID: 42
        )
        #expect(foreign == SystemdEnvironment(notifySocket: "/run/n"))
        #expect(
            try SystemdEnvironment(environment: ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "42"], processID: 42)
                .watchdogTimeout == .milliseconds(1)
        )
        #expect(
            try SystemdEnvironment(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], processID: 42).listeningSocket
                == nil
        )
        #expect(try SystemdEnvironment(environment: [:], processID: 42) == SystemdEnvironment())
    }

    @Test(arguments: [
        ["NOTIFY_SOCKET": "relative/path"],
        ["WATCHDOG_USEC": "soon"],
        ["WATCHDOG_USEC": "0"],
        ["LISTEN_PID": "42"],
        ["LISTEN_PID": "42", "LISTEN_FDS": "-1"],
    ])
    func malformedVariablesForThisProcessAreRefused(_ environment: [String: String]) {
        #expect(throws: (any Error).self) { try SystemdEnvironment(environment: environment, processID: 42) }
    }

    /// READY=1 once, status changes at most once a second, watchdog pings at half the timeout, READY=1 after a
    /// reload: one announcer, fed rounds at chosen instants.
    @Test func announcementsArePaced() {
        var announcer = SystemdAnnouncer(watchdogInterval: .milliseconds(500), statusInterval: .seconds(1))
        let start = ContinuousClock.now
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        var readiness = SystemdReadiness(soundServer: .waiting)

        #expect(
            announcer.fields(at: at(0), sessions: 0, streams: 0, readiness: readiness) == [
                "STATUS=starting", "WATCHDOG=1",
            ]
        )
        readiness.listening = true
        #expect(announcer.fields(at: at(100), sessions: 0, streams: 0, readiness: readiness) == [])
        #expect(announcer.fields(at: at(500), sessions: 0, streams: 0, readiness: readiness) == ["WATCHDOG=1"])
        #expect(
            announcer.fields(at: at(1000), sessions: 0, streams: 0, readiness: readiness)
                == ["STATUS=0 sessions, 0 streams, waiting for the sound server", "WATCHDOG=1"]
        )
        readiness.soundServer = .connected
        #expect(
            announcer.fields(at: at(1100), sessions: 0, streams: 0, readiness: readiness)
                == ["READY=1", "STATUS=0 sessions, 0 streams, sound server connected"]
        )
        #expect(announcer.fields(at: at(1500), sessions: 3, streams: 5, readiness: readiness) == ["WATCHDOG=1"])
        #expect(
            announcer.fields(at: at(2100), sessions: 3, streams: 5, readiness: readiness)
                == ["STATUS=3 sessions, 5 streams, sound server connected", "WATCHDOG=1"]
        )
        readiness.soundServer = .lost
        readiness.reloadHandedOver = true
        #expect(
            announcer.fields(at: at(2200), sessions: 1, streams: 1, readiness: readiness)
                == ["READY=1", "STATUS=1 session, 1 stream, sound server unavailable, reconnecting"]
        )
        readiness.reloadHandedOver = false
        #expect(announcer.fields(at: at(2600), sessions: 1, streams: 1, readiness: readiness) == ["WATCHDOG=1"])
        #expect(SystemdAnnouncer(watchdogInterval: nil, statusInterval: .seconds(1)).tick == .seconds(1))
        #expect(announcer.tick == .milliseconds(500))
    }

    @Test func theNotifierReachesAnAbstractSocket() async throws {
        let listener = try NotifyListener(path: "audiosessiond-test-\(UUID().uuidString)", abstract: true)
        defer { listener.stop() }
        try SystemdNotifier(destination: listener.address).send(["READY=1", "STATUS=fine"])
        let message = try await listener.first(within: 15) { $0.has("READY=1") }
        #expect(message.fields == ["READY=1", "STATUS=fine"])
        #expect(throws: (any Error).self) { try SystemdNotifier(destination: "/" + String(repeating: "x", count: 200)) }
    }
}

/// The daemon binary under a stand-in for systemd.
@Suite(.serialized, .timeLimit(.minutes(4))) struct SystemdDaemonTests {
    /// Type=notify with a watchdog: READY=1 comes only when the control socket accepts connections and the sound
    /// server is connected (it is down at first), then STATUS= follows what plays, WATCHDOG=1 keeps pace, and
    /// SIGTERM says STOPPING=1.
    @Test func readyWaitsForSocketAndSoundServerThenStatusWatchdogAndStopping() async throws {
        let server = try await PrivateSoundServer.start(.pulseaudio)
        defer { server.stop() }
        let control = server.directory + "/control"
        let notify = try NotifyListener(path: server.directory + "/notify") { acceptsConnections(control) }
        defer { notify.stop() }
        let tone = server.directory + "/tone.wav"
        try PrivateSoundServer.writeTone(to: tone, seconds: 30)
        try await server.kill()

        let daemon = try SpawnedDaemon(
            LiveDaemon.daemonPath,
            ["--socket", control, "--pulse-server", server.pulseServer, "--state-dir", server.directory + "/state"],
            environment: server.environment.merging(["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "1000000"]) {
                $1
            },
            logPath: server.directory + "/daemon.log"
        )
        defer { daemon.stop() }
        try await waitUntil("the daemon listens on \(control)") { acceptsConnections(control) }
        let waiting = try await notify.first(within: 15) {
            $0.status?.hasSuffix("sound server unavailable, reconnecting") == true
        }
        #expect(!notify.messages.contains { $0.has("READY=1") }, "ready without a sound server")
        #expect(notify.messages.contains { $0.has("WATCHDOG=1") }, "the watchdog is fed while starting too")

        try await server.restart()
        let ready = try await notify.first(within: 15) { $0.has("READY=1") }
        #expect(ready.at > waiting.at)
        #expect(ready.checkedAtReady == true, "READY=1 came before the control socket accepted connections")
        #expect(ready.status == "0 sessions, 0 streams, sound server connected")
        // READY=1 follows the inventory: the server's devices are already ports.
        let status = try await onThread { try ControlConnection(path: control, readTimeout: .seconds(60)).result(Request(.status)).status }
        #expect(status?.outputs.contains(.headphones) == true)

        let player = try server.spawn("paplay", [tone], environment: ["PULSE_PROP": "media.role=music"])
        defer { player.terminate() }
        let playing = try await notify.first(within: 15) { $0.status == "1 session, 1 stream, sound server connected" }
        try await Task.sleep(for: .seconds(1))

        let afterReady = notify.messages.filter { $0.at >= ready.at }
        let pings = afterReady.filter { $0.has("WATCHDOG=1") }.map(\.at)
        let gaps = zip(pings, pings.dropFirst()).map { ($1 - $0).timeInterval }
        #expect(gaps.count >= 3)
        #expect(gaps.allSatisfy { $0 < 1 }, "a ping came later than WATCHDOG_USEC: \(gaps)")
        let meanGap = gaps.reduce(0, +) / Double(max(gaps.count, 1))
        #expect(meanGap > 0.4 && meanGap < 0.75, "pings should come every 0.5 s; mean gap \(meanGap)")
        let statusTimes = afterReady.filter { $0.status != nil }.map(\.at)
        #expect(
            zip(statusTimes, statusTimes.dropFirst()).allSatisfy { ($1 - $0) >= .milliseconds(900) },
            "STATUS= more than once a second"
        )
        #expect(playing.at > ready.at)

        daemon.signal(SIGTERM)
        _ = try await notify.first(within: 15) { $0.has("STOPPING=1") }
        #expect(try await daemon.waitForExit(within: 10) == 0, "\(daemon.log)")
    }

    /// With no sound server, READY=1 once the socket listens; a watchdog meant for another process (WATCHDOG_PID)
    /// is not fed; SIGHUP is bracketed by RELOADING=1 and READY=1; the notify socket is abstract.
    @Test func withoutSoundServerReadyOnListeningAndReloadIsAnnounced() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let control = directory + "/control"
        let config = directory + "/policy.yaml"
        try "duckLevel: 0.3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let notify = try NotifyListener(path: "audiosessiond-test-\(UUID().uuidString)", abstract: true) {
            acceptsConnections(control)
        }
        defer { notify.stop() }

        let daemon = try SpawnedDaemon(
            LiveDaemon.daemonPath,
            ["--no-sound-server", "--socket", control, "--config", config, "--state-dir", directory + "/state"],
            environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"],
            logPath: directory + "/daemon.log"
        )
        defer { daemon.stop() }
        let ready = try await notify.first(within: 10) { $0.has("READY=1") }
        #expect(ready.checkedAtReady == true)
        #expect(ready.status == "0 sessions, 0 streams, no sound server")

        // SIGHUP is trapped before READY=1: a reload asked for at once is taken, and does not end the daemon.
        daemon.signal(SIGHUP)
        let reloading = try await notify.first(within: 15) { $0.has("RELOADING=1") }
        #expect(reloading.fields.contains { $0.hasPrefix("MONOTONIC_USEC=") })
        let reloaded = try await notify.first(within: 15) { $0.has("READY=1") && $0.at > reloading.at }
        #expect(reloaded.status == "0 sessions, 0 streams, no sound server")
        try await waitUntil("the reload is logged") { daemon.log.contains("configuration reloaded") }

        daemon.signal(SIGTERM)
        _ = try await notify.first(within: 15) { $0.has("STOPPING=1") }
        #expect(try await daemon.waitForExit(within: 10) == 0, "\(daemon.log)")
        #expect(!notify.messages.contains { $0.has("WATCHDOG=1") }, "pinged a watchdog meant for pid 1")
    }

    /// Socket activation: the daemon serves the listening socket it gets as descriptor 3 with LISTEN_PID set to
    /// its own pid, and leaves it where it is, as systemd made it, when it exits.
    @Test func servesTheSocketSystemdPassesAndLeavesItInPlace() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let control = directory + "/control"
        let descriptor = try listeningSocket(at: control)
        defer { close(descriptor) }
        #expect(chmod(control, 0o640) == 0)

        let daemon = try SpawnedDaemon(
            LiveDaemon.daemonPath,
            ["--no-sound-server", "--socket", directory + "/own/control", "--state-dir", directory + "/state"],
            environment: ["LISTEN_FDS": "1", "LISTEN_FDNAMES": "control"],
            listeningSocket: descriptor,
            logPath: directory + "/daemon.log"
        )
        defer { daemon.stop() }
        let status = try await onThread { try ControlConnection(path: control, readTimeout: .seconds(60)).result(Request(.status)).status }
        #expect(status?.mediaServicesAvailable == true)
        #expect(daemon.log.contains("listening on \(control) (passed by systemd)"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/own"), "the daemon bound a socket of its own")

        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit(within: 10) == 0, "\(daemon.log)")
        var info = stat()
        #expect(stat(control, &info) == 0, "the daemon removed systemd's socket")
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o640, "the daemon changed the mode of systemd's socket")
        #expect(acceptsConnections(control), "systemd's socket stopped listening")
    }

    /// A short private directory (socket paths are limited to 107 bytes).
    private func temporaryDirectory() throws -> String {
        var template = Array("/tmp/audiosessiond-systemd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed: errno \(errno)") }
        return String(cString: made)
    }
}

extension Duration {
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
