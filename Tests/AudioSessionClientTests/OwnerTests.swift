import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Locking
import Testing

@testable import AudioSessionClient

/// The session's one owner (docs/CLIENT.md, "Threading"): calls run on their callers' threads under one lock, a
/// listener thread reads what arrives between calls, and a callback run by the lock's holder may call the session,
/// close it included, without waiting for itself.
@Suite(.timeLimit(.minutes(3))) struct OwnerTests {
    /// Many threads calling one session at once: each gets its own reply (a legal category is taken, an illegal one
    /// refused), never another's.
    @Test func manyThreadsCallingAtOnceEachGetTheirOwnReply() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            try await onThread { try music.connect() }
            let wrong = Collected<String>()
            /// A legal category is taken and an illegal one refused (C4), whatever the other callers do meanwhile.
            @Sendable func call(_ caller: Int, _ call: Int) {
                let legal = caller.isMultiple(of: 2)
                let options: CategoryOptions = legal ? [] : [.defaultToSpeaker]
                do throws(AudioSessionError) {
                    try music.setCategory(legal ? .playback : .ambient, options: options)
                    if !legal { wrong.append("caller \(caller) call \(call): the illegal category was taken") }
                } catch {
                    if legal || error.rule != "C4" { wrong.append("caller \(caller) call \(call): \(error)") }
                }
                _ = music.isOtherAudioPlaying
            }
            await withTaskGroup(of: Void.self) { group in
                for caller in 0..<8 {
                    group.addTask { _ = try? await onThread { for number in 0..<25 { call(caller, number) } } }
                }
            }
            #expect(wrong.values.isEmpty, "\(wrong.values.prefix(5))")
            #expect(music.category == .playback)
        }
    }

    /// A verdict read between calls is handed to `onVerdict` on the listener thread, holding the lock; a call from
    /// there runs at once, and so does `close()`.
    @Test func aCallbackOnTheListenerThreadMayCallAndCloseTheSession() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            let nav = AudioSession(socketPath: daemon.socketPath, appName: "nav")
            defer {
                music.close()
                nav.close()
            }
            let answered = Collected<Bool>()
            let closed = Collected<Bool>()
            _ = try await onThread {
                try music.setCategory(.playback)
                return try music.startStream(direction: .output) { update in
                    guard update.verdict == .ducked else { return }
                    answered.append(music.isOtherAudioPlaying)
                    music.close()
                    closed.append(true)
                }
            }
            let notifications = music.notifications
            try await onThread {
                try nav.setCategory(.playback, mode: .voicePrompt, options: [.duckOthers])
                try nav.setActive(true)
            }
            // The sequence ends as the callback closes the session; then its close() returns.
            _ = await first(Int.max, of: notifications)
            #expect(try await onThread { eventually { closed.values == [true] } }, "close() did not return")
            #expect(answered.values.count == 1)
            let error = try await onThread { #expect(throws: AudioSessionError.self) { try music.setActive(true) } }
            #expect(error?.code == .daemonUnavailable)
            let gone = try await onThread {
                try eventually { try !daemon.status().sessions.contains { $0.app == "music" } }
            }
            #expect(gone, "the daemon still has the closed session")
        }
    }

    /// A verdict read by a caller inside its own call is handed to `onVerdict` on the caller's thread; `close()`
    /// from there returns, and the call ends (with its reply if it was read already, else `daemonUnavailable`).
    @Test func closingFromACallbackInsideACallReturns() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            let closed = Collected<Bool>()
            let outcome = try await onThread {
                try music.setCategory(.playback)
                return Result { () throws(AudioSessionError) -> ReportedStream in
                    try music.startStream(direction: .output) { _ in
                        music.close()
                        closed.append(true)
                    }
                }
            }
            #expect(closed.values == [true])
            if case .failure(let error) = outcome { #expect(error.code == .daemonUnavailable) }
            let error = try await onThread { #expect(throws: AudioSessionError.self) { try music.setActive(true) } }
            #expect(error?.code == .daemonUnavailable)
        }
    }

    /// The listener waits in `poll` without spinning: connected and idle after calls that read the replies it was
    /// woken for, and disconnected between connection attempts. Measured as its thread's CPU time over 3 s each.
    @Test func theListenerDoesNotSpinWhileIdle() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            try await onThread {
                try music.setCategory(.playback)
                try music.setActive(true)
                for _ in 0..<20 { _ = music.isOtherAudioPlaying }
            }
            let thread = try await listenerThread(of: music)
            let connected = try await cpuTicks(ofThread: thread, over: .seconds(3))
            let notifications = music.notifications
            await daemon.stop()
            guard case .mediaServicesWereLost? = await first(1, of: notifications).first else {
                Issue.record("the lost daemon was not told")
                return
            }
            let disconnected = try await cpuTicks(ofThread: thread, over: .seconds(3))
            // A thread that spins uses most of the 300 ticks of 3 s; a waiting one, next to none.
            #expect(connected <= 10, "the listener used \(connected) ticks of CPU in 3 s while connected and idle")
            #expect(disconnected <= 10, "the listener used \(disconnected) ticks of CPU in 3 s while disconnected")
        }
    }

    /// The daemon's `mediaServicesWereReset` (its sound server is back, M1): the running reported streams are started
    /// again outside the request that read it, before the notification, and before the lock is given up. Read by
    /// the listener between calls, and read by a call (`getState`) before its reply: that call returns only once
    /// the stream is started again.
    @Test func theDaemonsResetRestartsTheRunningStreamsBeforeTheLockIsGivenUp() async throws {
        let daemon = try FakeDaemon()
        defer { daemon.stop() }
        let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
        defer { music.close() }
        let start = Request(.startStream(1, direction: .output)).command
        @Sendable func starts() -> Int { daemon.requests.filter { $0.command == start }.count }
        let resets = music.mediaServicesWereReset
        let stream = try await onThread { try music.startStream(direction: .output) }
        #expect(starts() == 1)

        daemon.send(Event(.mediaServicesWereReset, because: "the fake's sound server is back (M1)"))
        let reset = await first(1, of: resets)
        #expect(reset.map(\.because) == ["the fake's sound server is back (M1)"])
        #expect(starts() == 2, "started again before the notification")

        daemon.send(Event(.mediaServicesWereReset, because: "back again (M1)"), before: .getState)
        let startsWhenTheCallReturned = try await onThread {
            _ = music.isOtherAudioPlaying
            return starts()
        }
        #expect(startsWhenTheCallReturned == 3, "started again before the call that read the reset returned")
        #expect(await first(1, of: resets).map(\.because) == ["back again (M1)"])
        #expect(daemon.requests.last?.command == start)
        #expect(stream.isRunning)
    }

    /// The real daemon's reset, on a real sound server killed and started again: the library starts the app's
    /// running stream again, so the daemon knows it (and the session is active again) without the app doing a thing.
    @Test func theRealDaemonsResetAfterItsSoundServerIsBackStartsTheStreamAgain() async throws {
        let server = try await PrivateSoundServer.start(.pulseaudio)
        defer { server.stop() }
        try await TestDaemon.with(pulseServer: server.pulseServer) { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            let lost = music.mediaServicesWereLost
            let resets = music.mediaServicesWereReset
            let stream = try await onThread {
                try music.setCategory(.playback)
                return try music.startStream(direction: .output)
            }
            #expect(music.isActive)
            try await server.kill()
            #expect(await first(1, of: lost).count == 1, "no mediaServicesWereLost when the sound server was killed")
            try await server.restart()
            let reset = await first(1, of: resets)
            #expect(reset.count == 1, "no mediaServicesWereReset when the sound server was back")
            // The daemon's own view (a round trip): the stream it was told of again has made the session active.
            let state = try #require(try await onThread { music.currentState() })
            #expect(state.state == .active, "the daemon has the session \(state.state) after its reset")
            #expect(stream.isRunning)
        }
    }

    /// The listener's thread id, which it records the first time it takes the lock after the calls that started it.
    func listenerThread(of session: AudioSession) async throws -> Int32 {
        for _ in 0..<500 {
            if let id = session.owner.withLock({ $0.listenerThreadID }) { return id }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw DaemonTestError("the listener thread did not start within 10 s")
    }

    /// How many clock ticks of CPU (user and system) the thread `id` of this process uses over `duration`.
    func cpuTicks(ofThread id: Int32, over duration: Duration) async throws -> Int {
        let before = try cpuTicks(ofThread: id)
        try await Task.sleep(for: duration)
        return try cpuTicks(ofThread: id) - before
    }

    func cpuTicks(ofThread id: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8)
        // After the name in parentheses: state, then utime and stime as the 12th and 13th fields.
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        return try #require(Int(fields[11])) + #require(Int(fields[12]))
    }
}
