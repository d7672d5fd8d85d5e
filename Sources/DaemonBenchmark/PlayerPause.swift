import Locking
import AudioSessionTestSupport
import DBusBackend
import Foundation
import PulseBackend

/// Benchmark 6 (section 6b): a real mpv with mpv-mpris plays on the daemon's sound server and private session
/// bus; a phone stream appears. From the phone stream's `new` event to mpv's stream seen silenced, and to mpv's
/// `PlaybackStatus` turning `Paused` (its `PropertiesChanged` signal, read on the bus). After each trial the
/// phone stream ends and mpv plays again (the daemon's P3) before the next.
func measurePlayerPause(_ daemonPath: String, trials: Int, into results: inout Results) async throws {
    let plugin = "/usr/lib/mpv-mpris/mpris.so"
    guard ChildProcess.executable(named: "mpv") != nil, FileManager.default.fileExists(atPath: plugin) else {
        return progress("player pause not measured: mpv and mpv-mpris are not installed")
    }
    progress("player pause: a private session bus, a private PulseAudio, the daemon and mpv")
    let bus = try await PrivateSessionBus.start()
    let busToken = Cleanup.register { bus.stop() }
    defer {
        bus.stop()
        Cleanup.done(busToken)
    }
    let rig = try await Rig.start("player", defaultSink: options.defaultSink)
    var completed = false
    defer { rig.shutDown(keepingLogs: !completed) }
    try await rig.startDaemon(daemonPath, environment: bus.environment)
    let tone = rig.server.directory + "/player.wav"
    try PrivateSoundServer.writeTone(to: tone, seconds: 10, frequency: 330)
    let mpv = try rig.server.spawn(
        "mpv", ["--no-config", "--script=\(plugin)", "--no-video", "--ao=pulse", "--really-quiet", "--loop-file=inf", tone],
        environment: bus.environment)
    let mpvToken = Cleanup.register { stop(mpv) }
    defer {
        stop(mpv)
        Cleanup.done(mpvToken)
    }
    let statuses = try await PlaybackStatuses(address: bus.address)
    defer { statuses.close() }
    let deadline = ContinuousClock.now + .seconds(10)
    var found: PulseSinkInput?
    while found == nil {
        guard mpv.isRunning, ContinuousClock.now < deadline else {
            throw BenchError("mpv did not play within 10 s; see \(rig.server.directory)/spawned-*.log")
        }
        found = try await rig.observer.connection.sinkInputs().first { $0.properties["application.name"] == "mpv" && !$0.corked }
        try await Task.sleep(for: .milliseconds(5))
    }
    let music = found!.index
    rig.observer.watch(music)
    var muted = Timings()
    var paused = Timings()
    // The first trial also waits for the daemon to have found mpv on the bus; it is not counted.
    for trial in 0...trials {
        let opening = ContinuousClock.now
        let phone = try await PulsePlaybackStream.open(
            server: rig.server.pulseServer, name: "phone", properties: ["media.role": "phone"])
        let appeared = await rig.observer.appearance(of: phone.sinkInputIndex)
        let silent = await rig.observer.allShow(silenced: true, [music], after: opening)
        let pause = await statuses.first(.paused, after: opening)
        let closing = ContinuousClock.now
        phone.close()
        guard await statuses.first(.playing, after: closing, timeout: .seconds(10)) != nil,
            await rig.observer.allShow(silenced: false, [music], after: closing) != nil
        else { throw BenchError("player: mpv did not play again, heard, after the call") }
        guard trial > 0 else { continue }
        muted.add(zip(appeared, silent).map { milliseconds($1 - $0) })
        paused.add(zip(appeared, pause).map { milliseconds($1 - $0) })
    }
    results.playerPause = (muted, paused)
    completed = true
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// mpv's `PlaybackStatus` changes as `PropertiesChanged` brings them, each dated when read.
final class PlaybackStatuses: Sendable {
    enum Status: String, Sendable { case playing = "Playing", paused = "Paused" }

    private let connection: DBusConnection
    private final class Log: Sendable {
        let entries = Locked<[(Status, ContinuousClock.Instant)]>([])
    }
    private let seen = Log()
    private let reader: Task<Void, Never>

    init(address: String) async throws {
        connection = try DBusConnection(.address(address))
        let changes = try await connection.propertiesChanges(
            sender: "org.mpris.MediaPlayer2.mpv", path: "/org/mpris/MediaPlayer2", interface: "org.mpris.MediaPlayer2.Player")
        let seen = seen
        reader = Task.detached {
            for await change in changes {
                let now = ContinuousClock.now
                guard let status = change.changed["PlaybackStatus"]?.string.flatMap(Status.init(rawValue:)) else { continue }
                seen.entries.withLock { $0.append((status, now)) }
            }
        }
    }

    /// When `status` was first read after `start`, waiting up to `timeout`.
    func first(_ status: Status, after start: ContinuousClock.Instant, timeout: Duration = .seconds(5)) async
        -> ContinuousClock.Instant?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let time = seen.entries.withLock({ $0.first { $0.0 == status && $0.1 >= start }?.1 }) { return time }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    func close() {
        reader.cancel()
        connection.close()
    }
}
