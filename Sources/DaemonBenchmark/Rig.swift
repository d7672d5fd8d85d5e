import AudioSessionTestSupport
import Foundation
import Locking
import PulseBackend

/// A private PulseAudio with an observer, and either the daemon enforcing on it or module-role-cork loaded.
final class Rig: @unchecked Sendable {
    let name: String
    let server: PrivateSoundServer
    let observer: Observer
    let socket: String
    private(set) var daemon: Process?
    private(set) var reactor: Process?
    private var reactorToken: Int?
    private var daemonToken: Int?
    private let serverToken: Int
    private var stopped = false

    /// Where the logs go when a run fails.
    static let logDirectory = "/tmp/daemon-benchmark-logs-\(getpid())"

    /// The module-role-cork configuration compared with: a phone stream mutes (and asks to cork) music.
    static let roleCork = "module-role-cork trigger_roles=phone cork_roles=music"

    /// A server with the test servers' devices (`speaker`, `headphones`, `builtInMic`), `defaultSink` its default.
    static func start(_ name: String, extraModules: [String] = [], defaultSink: String) async throws -> Rig {
        let server = try await PrivateSoundServer.start(.pulseaudio, extraModules: extraModules)
        let token = Cleanup.register { server.stop() }
        do {
            _ = try server.pactl(["set-default-sink", defaultSink])
            return try await Rig(name: name, server: server, token: token)
        } catch {
            server.stop()
            Cleanup.done(token)
            throw error
        }
    }

    private init(name: String, server: PrivateSoundServer, token: Int) async throws {
        self.name = name
        self.server = server
        self.serverToken = token
        socket = server.directory + "/control"
        observer = try await Observer(server: server.pulseServer)
    }

    /// Starts `audiosessiond --socket S --pulse-server P` (through the server's spawn, so that it takes
    /// signals) and waits until its socket accepts a connection.
    func startDaemon(_ path: String, arguments: [String] = [], environment: [String: String] = [:]) async throws {
        let process = try spawnDaemon(path, socket: socket, arguments: arguments, environment: environment)
        daemon = process
        daemonToken = Cleanup.register { stop(process) }
        let deadline = ContinuousClock.now + .seconds(10)
        while ControlClient.tryConnect(socket) == nil {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw BenchError("the daemon did not start; see \(server.directory)/spawned-*.log")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Starts a daemon on this server. A daemon that keeps state gets a private state directory in the
    /// server's (same file system as the default one here), so that runs share nothing with each other or with
    /// another daemon on the machine.
    func spawnDaemon(
        _ path: String, socket: String, arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> Process {
        var all = ["--socket", socket, "--pulse-server", server.pulseServer]
        if Rig.takesStateDirectory(path) { all += ["--state-dir", socket + ".state"] }
        return try server.spawn(path, all + arguments, environment: environment)
    }

    /// Whether the daemon at `path` has `--state-dir` (its `--help` says so).
    static func takesStateDirectory(_ path: String) -> Bool {
        stateDirectoryOption.withLock { known in
            if let answer = known[path] { return answer }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["--help"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            var answer = false
            if (try? process.run()) != nil {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                answer = text.contains("--state-dir")
            }
            known[path] = answer
            return answer
        }
    }
    private static let stateDirectoryOption = Locked<[String: Bool]>([:])

    /// Starts the minimal external policy client (the floor the daemon is compared with): this benchmark's own
    /// binary, `path`, with `--reactor`; returns once it is connected.
    func startReactor(_ path: String) async throws {
        let process = try server.spawn(path, ["--reactor", server.pulseServer])
        reactor = process
        reactorToken = Cleanup.register { stop(process) }
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !observer.connection.clients().contains(where: { $0.properties["application.name"] == "benchmark-reactor" }) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw BenchError("the floor client did not start; see \(server.directory)/spawned-*.log")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Makes the floor client pipeline its writes or await each one.
    func setPipelined(_ pipelined: Bool) async throws {
        guard let reactor else { return }
        kill(reactor.processIdentifier, pipelined ? SIGUSR1 : SIGUSR2)
        try await Task.sleep(for: .milliseconds(5))
    }

    func stopDaemon() {
        if let daemon { stop(daemon) }
        if let daemonToken { Cleanup.done(daemonToken) }
        daemon = nil
        daemonToken = nil
    }

    /// Copies the logs of the server and of what it spawned (the daemon's among them) to `directory`.
    func saveLogs(to directory: String) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: server.directory)) ?? []
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for file in files where file.hasSuffix(".log") {
            try? FileManager.default.copyItem(atPath: server.directory + "/" + file, toPath: "\(directory)/\(name)-\(file)")
        }
    }

    /// Stops everything; with `keepingLogs`, saves the logs to `logDirectory` first. Idempotent.
    func shutDown(keepingLogs: Bool = false) {
        if keepingLogs && !stopped { saveLogs(to: Rig.logDirectory) }
        stopped = true
        stopDaemon()
        if let reactor { stop(reactor) }
        if let reactorToken { Cleanup.done(reactorToken) }
        reactor = nil
        reactorToken = nil
        observer.close()
        server.stop()
        Cleanup.done(serverToken)
    }

    /// Opens `count` music streams (fed silence) on one client connection of `application`, with
    /// `properties(i)`, and watches them.
    func openStreams(
        _ count: Int,
        application: String = "music",
        properties: (Int) -> [String: String] = { _ in ["media.role": "music"] }
    ) async throws -> (PulsePlaybackGroup, [UInt32]) {
        let group = try await PulsePlaybackGroup.connect(server: server.pulseServer, application: application)
        var indices: [UInt32] = []
        for i in 0..<count {
            let index = try await group.open(name: "\(application) \(i)", properties: properties(i))
            indices.append(index)
            observer.watch(index)
        }
        return (group, indices)
    }

    /// Waits until every stream of `indices` shows not silenced after `quiet` with no change.
    func settle(_ indices: [UInt32], quiet: Duration = .milliseconds(200)) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            try await Task.sleep(for: quiet)
            let states = try await observer.state(of: indices)
            let silenced = indices.filter { states[$0] != false }.count
            if silenced == 0 { return }
            guard ContinuousClock.now < deadline else {
                throw BenchError("\(name): \(silenced) of \(indices.count) streams stay silenced")
            }
        }
    }
}
