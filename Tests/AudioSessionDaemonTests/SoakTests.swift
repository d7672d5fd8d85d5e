import Locking
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// The soak (`make soak`, docs/RELIABILITY.md): many clients at once against the real daemon on a private
/// PipeWire (pipewire-pulse) or PulseAudio with a music stream playing (`paplay`). Each client declares a
/// session, then changes its category and activates and deactivates it at random (seeded: a run can be
/// repeated) for a while; ducking, interrupting and call categories among them. At the end every client leaves,
/// and the music must be unmuted and at its user's volume, as the server reports it; the daemon's memory is
/// measured along the way.
///
/// Only with `AUDIOSESSIOND_SOAK=1` (it takes minutes); `SOAK_CLIENTS`, `SOAK_SECONDS`, `SOAK_SEED`,
/// `SOAK_PIPEWIRE_RUNS` and `SOAK_PULSEAUDIO_RUNS` set its size (`make soak` passes them).
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["AUDIOSESSIOND_SOAK"] == "1", "`make soak` runs it (AUDIOSESSIOND_SOAK=1)")
)
struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let clients = environment["SOAK_CLIENTS"].flatMap(Int.init) ?? 500
    static let seconds = environment["SOAK_SECONDS"].flatMap(Double.init) ?? 30
    static let seed = environment["SOAK_SEED"].flatMap(UInt64.init) ?? 1
    static let runs: [PrivateSoundServer.Kind: Int] = [
        .pipewire: environment["SOAK_PIPEWIRE_RUNS"].flatMap(Int.init) ?? 10,
        .pulseaudio: environment["SOAK_PULSEAUDIO_RUNS"].flatMap(Int.init) ?? 3,
    ]

    @Test(.timeLimit(.minutes(60)), arguments: PrivateSoundServer.Kind.allCases)
    func manyClientsComeAndGoAndTheMusicEndsUnmutedAtItsUsersVolume(_ kind: PrivateSoundServer.Kind) async throws {
        let runs = Self.runs[kind] ?? 0
        var results: [SoakRun.Result] = []
        for run in 0..<runs {
            let result = try await SoakRun(kind: kind, seed: Self.seed &+ UInt64(run)).run()
            print("soak \(kind) run \(run + 1) of \(runs): \(result)")
            results.append(result)
        }
        let left = results.filter { !$0.musicBack }
        print(
            """
            soak \(kind): \(runs) runs of \(Self.clients) clients for \(Self.seconds) s: \(left.count) with the music \
            left muted or ducked; \(results.map(\.requests).reduce(0, +)) requests; daemon memory idle \
            \(results.map(\.idleMegabytes).map { String(format: "%.1f", $0) }.joined(separator: "/")) MB, peak \
            \(results.map(\.peakMegabytes).map { String(format: "%.1f", $0) }.joined(separator: "/")) MB, after \
            \(results.map(\.endMegabytes).map { String(format: "%.1f", $0) }.joined(separator: "/")) MB
            """
        )
        #expect(left.isEmpty, "\(left)")
        #expect(results.allSatisfy { $0.failures.isEmpty }, "\(results.flatMap(\.failures).prefix(5))")
        #expect(results.allSatisfy { $0.sessionsLeft.isEmpty }, "\(results.map(\.sessionsLeft))")
    }
}

/// One run of the soak on a fresh server and daemon.
struct SoakRun {
    let kind: PrivateSoundServer.Kind
    let seed: UInt64

    struct Result: CustomStringConvertible, Sendable {
        var requests = 0
        var taken: [String: Int] = [:]
        var refused: [String: Int] = [:]
        var failures: [String] = []
        var musicBack = false
        var music = ""
        var sessionsLeft: [String] = []
        var idleMegabytes = 0.0
        var peakMegabytes = 0.0
        var endMegabytes = 0.0

        var description: String {
            let refusals = refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return """
                \(requests) requests (taken: \(taken.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); \
                refused: \(refusals.isEmpty ? "none" : refusals)), \(failures.count) client \
                failures; music after: \(music)\(musicBack ? "" : " LEFT CHANGED"); sessions left: \
                \(sessionsLeft.isEmpty ? "none" : sessionsLeft.joined(separator: ", ")); daemon memory idle \
                \(String(format: "%.1f", idleMegabytes)) MB, peak \(String(format: "%.1f", peakMegabytes)) MB, \
                after \(String(format: "%.1f", endMegabytes)) MB
                """
        }
    }

    func run() async throws -> Result {
        let rig = try await CrashRig(kind)
        defer { rig.stop() }
        try await rig.startDaemon()
        let daemonPID = try #require(rig.daemon?.processIdentifier)
        let tone = rig.server.directory + "/soak-tone.wav"
        try PrivateSoundServer.writeTone(to: tone, seconds: SoakTests.seconds + 120, frequency: 330)
        let player = try rig.server.spawn(
            "paplay",
            ["--property=application.name=radio", tone],
            environment: ["PULSE_PROP": "media.role=music"]
        )
        defer { player.terminate() }
        let music = try await rig.stream(app: "radio").index
        // The user's volume, set as a user would; WirePlumber may restore a saved one after the set: what the
        // server has once it stays is the user's volume, for the daemon and for the test.
        let wanted = PulseVolume(channels: [45875, 45875])
        try await eventually("the music keeps its user's volume") {
            try await rig.observer.setSinkInputVolume(music, wanted)
            try await Task.sleep(for: .milliseconds(500))
            return try await rig.observer.sinkInput(music)?.volume == wanted
        }
        let user = try #require(try await rig.observer.sinkInput(music)).volume

        var result = Result()
        result.idleMegabytes = Self.megabytes(of: daemonPID)
        let peak = Locked(result.idleMegabytes)
        let sampling = Locked(true)
        let sampler = Task {
            while sampling.withLock({ $0 }) {
                let now = Self.megabytes(of: daemonPID)
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }

        let workers = 20
        let deadline = Date().addingTimeInterval(SoakTests.seconds)
        let socket = rig.socket
        let clients = SoakTests.clients
        let seed = seed
        let outcomes = try await withThrowingTaskGroup(of: SoakWorker.Outcome.self) { group in
            for number in 0..<workers {
                group.addTask {
                    try await onThread {
                        var worker = SoakWorker(
                            socket: socket,
                            clients: Array(stride(from: number, to: clients, by: workers)),
                            seed: seed &* 1_000_003 &+ UInt64(number)
                        )
                        return worker.run(until: deadline)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for outcome in outcomes {
            result.requests += outcome.requests
            result.refused.merge(outcome.refused, uniquingKeysWith: +)
            result.taken.merge(outcome.taken, uniquingKeysWith: +)
            result.failures += outcome.failures
        }

        // Every client has left (the daemon takes their disconnections in turn): no session is left but the
        // music's, and the music is heard again, unmuted at its user's volume.
        do {
            try await eventually("every client's session has ended", within: 30) {
                try rig.control().status().sessions.allSatisfy { $0.app.hasPrefix("radio") }
            }
        } catch {}
        do {
            try await eventually("the music is unmuted at its user's volume after every client left", within: 30) {
                let now = try await rig.observer.sinkInput(music)
                return now?.muted == false && now?.volume == user
            }
            result.musicBack = true
        } catch {}
        let now = try await rig.observer.sinkInput(music)
        result.music = "muted \(now?.muted ?? true), volume \(now?.volume.channels ?? []) for \(user.channels)"
        let status = try rig.control().status()
        result.sessionsLeft = status.sessions.map(\.app).filter { !$0.hasPrefix("radio") }
        if let stream = status.streams.first(where: { $0.origin == "pulse sink-input \(music)" }) {
            result.music += "; verdict \(stream.verdict): \(stream.because)"
        }
        try await Task.sleep(for: .seconds(1))
        sampling.withLock { $0 = false }
        await sampler.value
        result.peakMegabytes = peak.withLock { $0 }
        result.endMegabytes = Self.megabytes(of: daemonPID)
        if !result.musicBack {
            let lines = rig.latestDaemonLog().split(separator: "\n").filter {
                !$0.contains("disconnected; session") && !$0.contains(": silenceSecondaryAudioHint ")
                    && !($0.contains(": interruption ") && $0.contains("soak-"))
            }
            print("soak \(kind): the daemon's log, but for clients coming and going:\n\(lines.suffix(60).joined(separator: "\n"))")
        }
        return result
    }

    static func megabytes(of pid: Int32) -> Double { Double(residentBytes(of: pid) ?? 0) / 1_000_000 }
}

/// A share of the soak's clients, driven by one thread: each connects and declares a session, then one at a
/// time at random changes its category, activates or deactivates; at the deadline each leaves (half of them
/// deactivate first, the others just close the connection).
struct SoakWorker {
    let socket: String
    let clients: [Int]
    var random: SplitMix

    struct Outcome: Sendable {
        var requests = 0
        var taken: [String: Int] = [:]
        var refused: [String: Int] = [:]
        var failures: [String] = []
    }

    init(socket: String, clients: [Int], seed: UInt64) {
        self.socket = socket
        self.clients = clients
        self.random = SplitMix(seed: seed)
    }

    /// The categories a client picks from: ducking, interrupting (nonmixable), mixing, and a call.
    static let choices: [(Category, CategoryOptions)] = [
        (.playback, .duckOthers), (.playback, []), (.playAndRecord, []), (.ambient, []), (.soloAmbient, []),
        (.playback, .mixWithOthers), (.playback, [.mixWithOthers, .duckOthers]),
    ]

    mutating func run(until deadline: Date) -> Outcome {
        var outcome = Outcome()
        var connections: [ControlConnection?] = []
        var subscribed: [Bool] = []
        var isCall: [Bool] = []
        // Whether the client's category mixes with others (its duck ends with its connection; it interrupts
        // no one); a session starts as `soloAmbient`, which does not.
        var mixable = [Bool](repeating: false, count: clients.count)
        // Whether it was active with a category that interrupts (or as a call) since its last deactivation: the
        // interruptions it caused end with `shouldResume` only if it deactivates with `notifyOthers`.
        var active = [Bool](repeating: false, count: clients.count)
        var mayInterrupt = [Bool](repeating: false, count: clients.count)
        for client in clients {
            do {
                let connection = try ControlConnection(path: socket, readTimeout: .seconds(30))
                // One client in 250 is a call (A6: it interrupts every other session while active; A2: while it
                // is, the others cannot activate, so more would leave little else to soak).
                let call = client % 250 == 7
                _ = try connection.result(Request(.hello(app: "soak-\(client)", call: call ? true : nil)))
                let subscribes = client % 4 == 0
                if subscribes { _ = try connection.result(Request(.subscribe)) }
                connections.append(connection)
                subscribed.append(subscribes)
                isCall.append(call)
                outcome.requests += subscribes ? 2 : 1
            } catch {
                outcome.failures.append("client \(client) could not connect: \(error)")
                connections.append(nil)
                subscribed.append(false)
                isCall.append(false)
            }
        }
        while Date() < deadline {
            let index = Int(random.next() % UInt64(clients.count))
            guard let connection = connections[index] else { continue }
            var request: Request
            switch random.next() % 3 {
            case 0:
                let (category, options) = Self.choices[Int(random.next() % UInt64(Self.choices.count))]
                request = Request(.setCategory(category, options: options))
            case 1: request = Request(.activate)
            default:
                // With `notifyOthers`, so what it interrupted is resumed (D3, U3): by the policy, an unaware
                // music interrupted by an app that ends without it stays silent until it is restarted.
                request = Request(.deactivate(notifyOthers: true))
            }
            do {
                let reply = try connection.call(request)
                outcome.requests += 1
                if let error = reply.error {
                    outcome.refused["\(request.op.rawValue) \(error.code)", default: 0] += 1
                } else {
                    outcome.taken[request.op.rawValue, default: 0] += 1
                    switch request.command {
                    case .setCategory(let category, _, let options):
                        mixable[index] = options?.contains(.mixWithOthers) == true
                            || options?.contains(.duckOthers) == true || category == .ambient
                        if active[index] && !mixable[index] { mayInterrupt[index] = true }
                    case .activate:
                        active[index] = true
                        if !mixable[index] || isCall[index] { mayInterrupt[index] = true }
                    default:
                        active[index] = false
                        mayInterrupt[index] = false
                    }
                }
                if subscribed[index] { while try connection.nextEvent(timeout: .zero) != nil {} }
            } catch {
                outcome.failures.append("client \(clients[index]): \(request.op.rawValue): \(error)")
                connections[index] = nil
            }
        }
        // Leaving: a client that may have interrupted others since it last deactivated does so with
        // `notifyOthers` first; one that only mixed or ducked just closes its connection, active or not.
        for (index, connection) in connections.enumerated() {
            guard let connection, mayInterrupt[index] else { continue }
            let leave = Request(.deactivate(notifyOthers: true))
            if (try? connection.call(leave)) != nil { outcome.requests += 1 }
        }
        connections.removeAll()
        return outcome
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same soak.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
