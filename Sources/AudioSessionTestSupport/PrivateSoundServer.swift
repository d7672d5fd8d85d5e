import Foundation
import Locking

/// A private headless sound server for one test: PulseAudio, or PipeWire with pipewire-pulse and WirePlumber,
/// living in its own temporary directory with its own socket, so that tests can run side by side.
///
/// It is started by `scripts/sound-server.sh` with the null sinks `speaker` (the default sink, "Speaker") and
/// `headphones`, and the null source `builtInMic` (the default source). Clients reach it through
/// `environment`. It stops, and its directory is removed, on `stop()` or when it is released.
public final class PrivateSoundServer: Sendable {
    /// Which sound server to run.
    public enum Kind: String, Sendable, CaseIterable {
        /// PulseAudio 16 with `-n`: only the modules the script and the test load.
        case pulseaudio
        /// PipeWire with pipewire-pulse (the PulseAudio protocol) and WirePlumber.
        case pipewire
    }

    /// Which sound server this is.
    public let kind: Kind
    /// The server's private directory: sockets, configuration and logs (`*.log`).
    public let directory: String
    /// The address of its PulseAudio-protocol socket, `unix:/.../native`; the same after `restart()`.
    public let pulseServer: String
    /// What a client process needs to reach this server: `PULSE_SERVER`, and the `XDG_*` directories for
    /// PipeWire.
    public let environment: [String: String]

    private let extraModules: [String]
    private let script: URL
    private let state = Locked(State())

    private struct State {
        var stopped = false
        var spawnedCount = 0
        /// Each spawned process's log (its standard output and error), by process id.
        var logs: [Int32: String] = [:]
    }

    private init(kind: Kind, directory: String, extraModules: [String], script: URL) throws {
        self.kind = kind
        self.directory = directory
        self.extraModules = extraModules
        self.script = script
        var environment: [String: String] = [:]
        let envFile = try String(contentsOfFile: "\(directory)/env", encoding: .utf8)
        for line in envFile.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        guard let pulseServer = environment["PULSE_SERVER"] else {
            throw SoundServerError(code: .startFailed, message: "\(directory)/env sets no PULSE_SERVER")
        }
        self.environment = environment
        self.pulseServer = pulseServer
    }

    deinit {
        stop()
    }

    /// Starts a private server of `kind` in a new temporary directory, then loads `extraModules` with
    /// `pactl load-module`: a module name, optionally followed by its arguments separated by spaces
    /// (`"module-role-cork trigger_roles=phone"`). Throws a `SoundServerError` with the tail of the server
    /// logs if it cannot start, or naming the Debian package to install if a program is missing.
    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    public static func start(_ kind: Kind, extraModules: [String] = []) throws -> PrivateSoundServer {
        let script = try soundServerScript()
        let directory = try makeTemporaryDirectory(prefix: "audiosessiond-\(kind.rawValue)")
        do {
            try runScript(script, ["start", kind.rawValue, directory], what: "start a private \(kind.rawValue)")
            let server = try PrivateSoundServer(
                kind: kind,
                directory: directory,
                extraModules: extraModules,
                script: script
            )
            try server.loadExtraModules()
            return server
        } catch {
            _ = try? runScript(script, ["kill", directory], what: "clean up")
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Whether the server answers (`pactl info`) right now.
    public func isAnswering() -> Bool {
        (try? Self.runScript(script, ["status", directory], what: "ask")) != nil
    }

    /// Runs `pactl` with `arguments` against this server and returns its standard output; throws with its
    /// standard error if it fails.
    @discardableResult
    public func pactl(_ arguments: [String]) throws -> String {
        guard let pactl = ChildProcess.executable(named: "pactl") else {
            throw SoundServerError(
                code: .packageMissing,
                message: "pactl is not installed; install the Debian package pulseaudio-utils"
            )
        }
        let output = try ChildProcess.run(
            pactl,
            arguments,
            environment: ChildProcess.environment(environment),
            // A safety limit: with two whole test runs side by side one took more than 10 s.
            timeout: .seconds(30)
        )
        guard output.status == 0 else {
            throw SoundServerError(
                code: .commandFailed,
                message: "`pactl \(arguments.joined(separator: " "))` failed (exit \(output.status)) on \(pulseServer)",
                context: output.standardError
            )
        }
        return output.standardOutput
    }

    /// Loads a null sink called `name` (with `description` as its `device.description`) and returns the index of
    /// its module, for `unloadModule(_:)`: plugging and unplugging an output.
    public func loadNullSink(_ name: String, description: String? = nil) throws -> UInt32 {
        try Self.validate(name: name)
        var arguments = ["load-module", "module-null-sink", "sink_name=\(name)"]
        if let description {
            try Self.validate(description: description)
            arguments.append("sink_properties=\"device.description='\(description)'\"")
        }
        return try moduleIndex(pactl(arguments))
    }

    /// Loads a null source called `name` and returns the index of its module: plugging a microphone in.
    public func loadNullSource(_ name: String) throws -> UInt32 {
        try Self.validate(name: name)
        switch kind {
        case .pulseaudio:
            return try moduleIndex(pactl(["load-module", "module-null-source", "source_name=\(name)"]))
        case .pipewire:
            // pipewire-pulse has no module-null-source; a null sink of this class is a source.
            return try moduleIndex(
                pactl(["load-module", "module-null-sink", "media.class=Audio/Source/Virtual", "sink_name=\(name)"])
            )
        }
    }

    /// Unloads the module `index`, e.g. a null sink: unplugging it.
    public func unloadModule(_ index: UInt32) throws {
        try pactl(["unload-module", String(index)])
    }

    /// `kill` for async code, on a thread of its own (see the async `start`).
    public func kill() async throws {
        try await onThread { try self.kill() as Void }
    }

    /// Kills the server processes with SIGKILL and waits until they are gone, as when the sound server crashes.
    /// Clients see the connection drop. `restart()` brings it back.
    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    public func kill() throws {
        try checkNotStopped()
        try Self.runScript(script, ["kill", directory], what: "kill the \(kind.rawValue)")
    }

    /// Freezes the server's processes (SIGSTOP), so that requests stay pending: for tests of a server that
    /// stops answering. `kill()` or `stop()` ends them.
    public func freeze() throws {
        try checkNotStopped()
        let pids = (try? String(contentsOfFile: directory + "/pids", encoding: .utf8)) ?? ""
        for line in pids.split(separator: "\n") {
            if let pid = line.split(separator: " ").first.flatMap({ Int32($0) }) { Foundation.kill(pid, SIGSTOP) }
        }
    }

    /// `start` for async code: on a thread of its own. Starting a server waits for it (seconds on a loaded
    /// machine), and Swift's cooperative thread pool has as many threads as the machine has cores (two here):
    /// blocking them in several tests at once stalled every other task of the test process, in-process daemons
    /// included, for most of a minute. In an async context this overload is the one chosen.
    public static func start(_ kind: Kind, extraModules: [String] = []) async throws -> PrivateSoundServer {
        try await onThread { try start(kind, extraModules: extraModules) as PrivateSoundServer }
    }

    /// `restart` for async code, on a thread of its own (see the async `start`).
    public func restart() async throws {
        try await onThread { try self.restart() as Void }
    }

    /// Starts the server again (stopping it first if it runs) in the same directory, at the same `pulseServer`
    /// address, with the same initial devices and `extraModules`; modules loaded since `start` are gone.
    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    public func restart() throws {
        try checkNotStopped()
        try Self.runScript(script, ["stop", directory], what: "stop the \(kind.rawValue)")
        try Self.runScript(script, ["start", kind.rawValue, directory], what: "restart the \(kind.rawValue)")
        try loadExtraModules()
    }

    /// Stops the server and removes its directory. Idempotent; done on release too.
    public func stop() {
        let alreadyStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !alreadyStopped else { return }
        do {
            try Self.runScript(script, ["stop", directory], what: "stop the \(kind.rawValue)")
        } catch {
            // Nothing to hand the error to (this may run in deinit); keep the directory for a post-mortem.
            FileHandle.standardError.write(Data("PrivateSoundServer: \(error)\n".utf8))
            return
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts `executable` (looked up on PATH, e.g. `paplay`) with `arguments`, in this process's environment
    /// plus the server's `environment` plus `environment`, and returns it running; the caller terminates it.
    /// Its output goes to `spawned-N-NAME.log` in the server directory.
    public func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) throws -> Process {
        try checkNotStopped()
        guard let url = ChildProcess.executable(named: executable) else {
            let package = Self.debianPackages[executable].map { "; install the Debian package \($0)" } ?? ""
            throw SoundServerError(code: .packageMissing, message: "\(executable) is not on PATH\(package)")
        }
        let number = state.withLock { state in
            state.spawnedCount += 1
            return state.spawnedCount
        }
        let logPath = "\(directory)/spawned-\(number)-\(url.lastPathComponent).log"
        let log = try ChildProcess.newFile(logPath)
        defer { try? log.close() }

        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ChildProcess.environment(self.environment.merging(environment) { _, new in new })
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        do {
            try ChildProcess.launch(process)
        } catch {
            throw SoundServerError(code: .commandFailed, message: "cannot start \(url.path): \(error)")
        }
        state.withLock { $0.logs[process.processIdentifier] = logPath }
        return process
    }

    /// What a process started by `spawn` has written so far (standard output and error together).
    public func output(of process: Process) -> String {
        guard let path = state.withLock({ $0.logs[process.processIdentifier] }) else { return "" }
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Writes a WAV file (16-bit PCM, 44.1 kHz, stereo) holding a sine tone of `frequency` Hz lasting `seconds`.
    public static func writeTone(to path: String, seconds: Double, frequency: Double = 440) throws {
        let sampleRate = 44_100
        let channels = 2
        let frames = max(0, Int((seconds * Double(sampleRate)).rounded()))
        let dataSize = frames * channels * 2
        var wav = Data(capacity: 44 + dataSize)
        func append(_ text: String) { wav.append(contentsOf: Array(text.utf8)) }
        func append<Integer: FixedWidthInteger>(_ value: Integer) {
            withUnsafeBytes(of: value.littleEndian) { wav.append(contentsOf: $0) }
        }
        append("RIFF")
        append(UInt32(36 + dataSize))
        append("WAVE")
        append("fmt ")
        append(UInt32(16))  // size of the fmt chunk
        append(UInt16(1))  // PCM
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * channels * 2))  // bytes per second
        append(UInt16(channels * 2))  // bytes per frame
        append(UInt16(16))  // bits per sample
        append("data")
        append(UInt32(dataSize))
        wav.append(toneSamples(frames: frames, channels: channels, step: 2 * Double.pi * frequency / Double(sampleRate)))
        do {
            try wav.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SoundServerError(code: .commandFailed, message: "cannot write the tone \(path): \(error)")
        }
    }

    /// The samples of a tone, computed once per process for each length and pitch: tests start many servers
    /// with the same tones, and computing them (a fraction of a second each in a debug build, seconds when
    /// several start together) ran on a thread of Swift's cooperative pool, which has only as many threads as
    /// cores: live tests starting together stalled the whole test process with it (one sample at a time it was
    /// ten times slower still).
    private static func toneSamples(frames: Int, channels: Int, step: Double) -> Data {
        let key = ToneKey(frames: frames, channels: channels, step: step)
        if let known = tones.withLock({ $0[key] }) { return known }
        var samples = [Int16](repeating: 0, count: frames * channels)
        samples.withUnsafeMutableBufferPointer { buffer in
            for frame in 0..<frames {
                let sample = Int16((sin(step * Double(frame)) * 0.5 * Double(Int16.max)).rounded()).littleEndian
                for channel in 0..<channels { buffer[frame * channels + channel] = sample }
            }
        }
        let data = samples.withUnsafeBytes { Data($0) }
        tones.withLock { $0[key] = data }
        return data
    }

    private static let tones = Locked<[ToneKey: Data]>([:])

    // MARK: - Private

    private static let debianPackages = [
        "pactl": "pulseaudio-utils", "paplay": "pulseaudio-utils", "pacat": "pulseaudio-utils",
        "parec": "pulseaudio-utils", "pamon": "pulseaudio-utils", "parecord": "pulseaudio-utils",
        "pw-cat": "pipewire-bin", "pw-play": "pipewire-bin", "pw-record": "pipewire-bin", "sox": "sox",
        "aplay": "alsa-utils",
    ]

    private func checkNotStopped() throws {
        if state.withLock({ $0.stopped }) {
            throw SoundServerError(code: .notRunning, message: "the \(kind.rawValue) in \(directory) was stopped")
        }
    }

    private func loadExtraModules() throws {
        for module in extraModules {
            try pactl(["load-module"] + module.split(separator: " ").map(String.init))
        }
    }

    private func moduleIndex(_ output: String) throws -> UInt32 {
        guard let index = UInt32(output.trimmingWhitespace) else {
            throw SoundServerError(
                code: .commandFailed,
                message: "pactl load-module printed no module index: \(output)"
            )
        }
        return index
    }

    private static func validate(name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.allSatisfy(allowed.contains) else {
            throw SoundServerError(
                code: .invalidArgument,
                message: "device name '\(name)' must be letters, digits, ._-"
            )
        }
    }

    private static func validate(description: String) throws {
        guard !description.contains(where: { "'\"\\".contains($0) || $0.isNewline }) else {
            throw SoundServerError(
                code: .invalidArgument,
                message: "device description '\(description)' must not contain quotes, backslashes or newlines"
            )
        }
    }

    /// `scripts/sound-server.sh`, three directories up from this file.
    private static func soundServerScript(file: String = #filePath) throws -> URL {
        let script = URL(fileURLWithPath: file)
            .deletingLastPathComponent()  // AudioSessionTestSupport
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // the repository
            .appendingPathComponent("scripts/sound-server.sh")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw SoundServerError(code: .startFailed, message: "\(script.path) is missing")
        }
        return script
    }

    /// A new directory; in /tmp when TMPDIR is so long that the server's socket path would not fit.
    private static func makeTemporaryDirectory(prefix: String) throws -> String {
        try FileManager.default.makeTemporaryDirectory(prefix: prefix)
    }

    /// Runs the sound-server script with `arguments`; `what` says what for, in errors.
    @discardableResult
    private static func runScript(_ script: URL, _ arguments: [String], what: String) throws -> String {
        guard let bash = ChildProcess.executable(named: "bash") else {
            throw SoundServerError(
                code: .packageMissing,
                message: "bash is not on PATH; install the Debian package bash"
            )
        }
        let output = try ChildProcess.run(
            bash,
            [script.path] + arguments,
            environment: ProcessInfo.processInfo.environment,
            timeout: .seconds(60)
        )
        switch output.status {
        case 0:
            return output.standardOutput
        case 3:
            throw SoundServerError(
                code: .packageMissing,
                message: "cannot \(what) sound server: a program is missing",
                context: output.standardError
            )
        default:
            throw SoundServerError(
                code: arguments.first == "start" ? .startFailed : .commandFailed,
                message: "cannot \(what) sound server (`sound-server.sh \(arguments.joined(separator: " "))` "
                    + "exited with \(output.status))",
                context: output.standardError
            )
        }
    }
}

/// A tone's length, channels and pitch (radians per frame), for `PrivateSoundServer`'s cache of tones.
private struct ToneKey: Hashable, Sendable {
    var frames: Int
    var channels: Int
    var step: Double
}
