import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionTestSupport
import Glibc
import Locking
import Logging
import PulseBackend
import Testing

@testable import AudioSessionDaemon

/// The policy's timers (here an unaware app's grace, U2: its end lets the music it interrupted play) run on the sound server's libpulse thread while the
/// daemon is connected (docs/DAEMON.md, "The hot path"), and on tasks, at the same time, once that loop ended.
@Suite(.timeLimit(.minutes(2))) struct PolicyTimerTests {
    /// Music, then a call of an unaware phone app that interrupts it and ends: the call's session keeps the music
    /// silent through its grace (U2), two seconds here, which no loop turn of a loaded machine comes as late as.
    static let music = SoundStream(
        origin: .sinkInput(4),
        direction: .output,
        properties: ["media.role": "music", "application.name": "Radio"],
        isRunning: true
    )
    static let call = SoundStream(
        origin: .sinkInput(5),
        direction: .output,
        properties: ["media.role": "phone", "application.name": "Phone"],
        isRunning: true
    )
    static let grace = PolicyConfig(graceMs: 2000)

    /// The connection's timers, each fire noted with its thread.
    struct NotedLoop: TimerLoop {
        let loop: ConnectionTimerLoop
        let fires: Locked<[UInt]>

        func start(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
            loop.start(after: delay) { [fires] in
                fires.withLock { $0.append(UInt(pthread_self())) }
                fire()
            }
        }
    }

    @Test func anUnawareAppsGraceRunsOutOnTheServersLoop() async throws {
        try await withPolicy { policy, connection, lines in
            let fires = Locked<[UInt]>([])
            policy.runTimers(on: NotedLoop(loop: ConnectionTimerLoop(executor: connection.executor), fires: fires))
            let loopThread = try await withTaskExecutorPreference(connection.executor) {
                _ = try await connection.serverInfo()
                return UInt(pthread_self())
            }
            policy.take(.sound(.streamSeen(Self.music)))
            policy.take(.sound(.streamSeen(Self.call)))
            policy.take(.sound(.streamGone(Self.call.origin)))
            try await eventually("the grace ran out", within: 10) { Self.graceRanOut(lines) }
            #expect(fires.withLock { $0 } == [loopThread])
        }
    }

    /// The loop ends (the server is lost, or the connection closed) while the grace runs: it runs out on a task
    /// when it was due; it is neither lost with the loop nor cut short.
    @Test func aGraceStillRunningWhenTheServersLoopEndsRunsOutOnATask() async throws {
        try await withPolicy { policy, connection, lines in
            let fires = Locked<[UInt]>([])
            policy.runTimers(on: NotedLoop(loop: ConnectionTimerLoop(executor: connection.executor), fires: fires))
            let started = ContinuousClock.now
            policy.take(.sound(.streamSeen(Self.music)))
            policy.take(.sound(.streamSeen(Self.call)))
            policy.take(.sound(.streamGone(Self.call.origin)))
            connection.close()
            policy.timerLoopEnded()
            #expect(!Self.graceRanOut(lines))
            try await eventually("the grace ran out", within: 10) { Self.graceRanOut(lines) }
            #expect(ContinuousClock.now - started >= .seconds(2))
            #expect(fires.withLock { $0 }.isEmpty, "the loop ended before the grace's end")
        }
    }

    static func graceRanOut(_ lines: Locked<[String]>) -> Bool {
        lines.withLock { $0 }.contains { $0.contains("Radio (music): interruption ended") }
    }

    /// A policy service with a core of its own and a recording log, and a connection to a private PulseAudio.
    func withPolicy(
        _ body: (PolicyService, PulseConnection, Locked<[String]>) async throws -> Void
    ) async throws {
        let server = try await PrivateSoundServer.start(.pulseaudio)
        defer { server.stop() }
        let connection = PulseConnection(server: server.pulseServer, applicationName: "PolicyTimerTests")
        try await connection.connect()
        defer { connection.close() }
        let lines = Locked<[String]>([])
        let (inputs, feed) = AsyncStream<DaemonInput>.makeStream()
        let policy = PolicyService(
            core: DaemonCore(engine: PolicyEngine(config: Self.grace), controlUserID: 1000),
            inputs: inputs,
            feedback: feed,
            outboxes: Outboxes(),
            enforcer: nil,
            logger: Logger(label: "PolicyTimerTests") { _ in RecordingLogHandler(lines: lines) }
        )
        policy.take(.sound(.serverConnected))
        do {
            try await body(policy, connection, lines)
        } catch {
            print("PolicyTimerTests: the policy's log:\n\(lines.withLock { $0 }.joined(separator: "\n"))")
            throw error
        }
    }
}
