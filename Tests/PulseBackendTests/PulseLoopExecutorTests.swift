import Glibc
import Locking
import PulseBackend
import Testing

/// `PulseConnection.executor`: a task that prefers it runs on the connection's libpulse thread, where the events
/// are read and the answers come in; before `connect()` and after `close()` it runs on the global executor.
@Suite("The connection's thread as a task executor", .timeLimit(.minutes(2)))
struct PulseLoopExecutorTests {
    @Test func aTaskThatPrefersTheExecutorIsResumedOnLibpulsesThread() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            // libpulse's thread: where the listener is called.
            let loopThread = Locked<UInt?>(nil)
            connection.listen { _ in loopThread.withLock { $0 = UInt(pthread_self()) } }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            try await eventually("an event read on libpulse's thread") { loopThread.withLock { $0 } != nil }

            let threads = await withTaskExecutorPreference(connection.executor) {
                var threads: [UInt] = []
                for _ in 0..<3 {
                    // Each answer resumes the task; it runs again where the answer was read.
                    _ = try? await connection.sinkInput(music.sinkInputIndex)
                    threads.append(UInt(pthread_self()))
                }
                _ = await connection.apply([.sinkInputMute(music.sinkInputIndex, true)])
                threads.append(UInt(pthread_self()))
                return threads
            }
            let libpulse = try #require(loopThread.withLock { $0 })
            #expect(threads.allSatisfy { $0 == libpulse }, "resumed on \(threads), libpulse's thread is \(libpulse)")
            #expect(try await connection.sinkInput(music.sinkInputIndex)?.muted == true)
        }
    }

    /// A request sent from libpulse's own thread asks libpulse to wake its mainloop twice (its deferred write, its
    /// reply's timer), and a task resumed there would write the executor's eventfd: none of it is done there
    /// (CPulseLoop, the executor's deferred event), and every answer still comes.
    @Test func requestsFromLibpulsesThreadLeaveItsWakeupsOut() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            let (before, after, answered) = await withTaskExecutorPreference(connection.executor) {
                // The first answer brings the task to libpulse's thread.
                _ = try? await connection.sinkInput(music.sinkInputIndex)
                let before = PulseLoopExecutor.wakeupsLeftOutOnThisThread
                var answered = 0
                for _ in 0..<5 where (try? await connection.sinkInput(music.sinkInputIndex)) != nil { answered += 1 }
                _ = await connection.apply([.sinkInputMute(music.sinkInputIndex, true)])
                return (before, PulseLoopExecutor.wakeupsLeftOutOnThisThread, answered)
            }
            #expect(answered == 5)
            #expect(after >= before + 12, "left out \(after - before) of libpulse's wake-ups for six requests")
            #expect(try await connection.sinkInput(music.sinkInputIndex)?.muted == true)
        }
    }

    /// Work handed over from another thread (as a verdict from the policy's loop) wakes the loop; a task whose
    /// connection was closed, or never made, still runs to its end.
    @Test func workFromOtherThreadsIsTakenAndNothingIsStrandedByClose() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            let (work, feed) = AsyncStream<Int>.makeStream()
            let taken = Task {
                await withTaskExecutorPreference(connection.executor) {
                    var sum = 0
                    for await item in work { sum += item }
                    return sum
                }
            }
            let fed = Locked(0)
            for item in 1...100 {
                startThread(named: "feeder") {
                    feed.yield(item)
                    fed.withLock { $0 += 1 }
                }
            }
            try await eventually("the hundred items handed over") { fed.withLock { $0 } == 100 }
            feed.finish()
            #expect(await taken.value == 5050)
            connection.close()
            let afterClose = await withTaskExecutorPreference(connection.executor) {
                await Task.yield()
                return true
            }
            #expect(afterClose)
            let neverConnected = PulseConnection(server: server.server, applicationName: "never")
            let beforeConnect = await withTaskExecutorPreference(neverConnected.executor) {
                await Task.yield()
                return true
            }
            #expect(beforeConnect)
        }
    }
}
