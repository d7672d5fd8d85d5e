import AudioSessionTestSupport
import Foundation
import Locking
import PulseBackend
import Testing

@testable import AudioSessionDaemon

/// `EventSieve` with the infos a private PulseAudio gives (its sinks and sources, this test's own client), and the
/// process line read from /proc: which events the connection's loop gets a turn for.
@Suite(.timeLimit(.minutes(2))) struct EventSieveTests {
    /// The server's devices and this test's client, as the daemon's connection would read them.
    struct Infos {
        let sink: PulseSink
        let source: PulseSource
        let ownClient: PulseClient
    }

    static func withInfos(_ body: (Infos) throws -> Void) async throws {
        let server = try await PrivateSoundServer.start(.pulseaudio)
        defer { server.stop() }
        let connection = PulseConnection(server: server.pulseServer, applicationName: "event-sieve-tests")
        defer { connection.close() }
        try await connection.connect()
        let sink = try #require(try await connection.sinks().first)
        let source = try #require(try await connection.sources().first { $0.monitorOfSink == nil })
        let ownClient = try #require(
            try await connection.clients().first { $0.properties["application.name"] == "event-sieve-tests" }
        )
        try body(Infos(sink: sink, source: source, ownClient: ownClient))
    }

    @Test func aDevicesChangeThatLeavesItAsTheLoopLastGotItStaysInTheSieve() async throws {
        try await Self.withInfos { infos in
            var sieve = EventSieve()
            let index = infos.sink.index
            #expect(sieve.sift(.changed(.sink, .new, index: index), info: .sink(infos.sink)) == .queue)
            // Its volume or state changed: the info the daemon reads is the same.
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(infos.sink)) == .keep)
            var otherPort = infos.sink
            otherPort.activePort = "analog-output-headphones"
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(otherPort)) == .queue)
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(otherPort)) == .keep)
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(infos.sink)) == .queue)
            var renamed = infos.sink
            renamed.properties["device.description"] = "Renamed"
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(renamed)) == .queue)

            // An info that did not come (the query failed): the loop asks itself, and the next change goes too.
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: nil) == .queue)
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(renamed)) == .queue)
            // Gone, then an index seen again: nothing is kept of the old one.
            #expect(sieve.sift(.changed(.sink, .remove, index: index), info: nil) == .queue)
            #expect(sieve.sift(.changed(.sink, .change, index: index), info: .sink(renamed)) == .queue)

            let source = infos.source.index
            #expect(sieve.sift(.changed(.source, .change, index: source), info: .source(infos.source)) == .queue)
            #expect(sieve.sift(.changed(.source, .change, index: source), info: .source(infos.source)) == .keep)
            var otherSourcePort = infos.source
            otherSourcePort.activePort = "analog-input-headset-mic"
            #expect(sieve.sift(.changed(.source, .change, index: source), info: .source(otherSourcePort)) == .queue)
        }
    }

    @Test func aClientsEventsStayInTheSieveWhichReadsItsProcessLineAsItNamesItsProcess() async throws {
        try await Self.withInfos { infos in
            var sieve = EventSieve()
            let index = infos.ownClient.index
            #expect(infos.ownClient.properties["application.process.id"] == "\(getpid())")
            #expect(sieve.sift(.changed(.client, .change, index: index), info: .client(infos.ownClient)) == .keep)
            let known = try #require(sieve.clientLines[index])
            #expect(known.processID == getpid())
            #expect(known.line.first == getpid())
            #expect(known.line.dropFirst().first == getppid())

            // A client that has not named its process yet (PulseAudio's appearance event) has no line.
            var unnamed = infos.ownClient
            unnamed.properties["application.process.id"] = nil
            #expect(sieve.sift(.changed(.client, .new, index: index + 1), info: .client(unnamed)) == .keep)
            #expect(sieve.clientLines[index + 1] == nil)

            #expect(sieve.sift(.changed(.client, .remove, index: index), info: nil) == .keep)
            #expect(sieve.clientLines[index] == nil)
        }
    }

    /// A process's line is read once while a client of it is connected: a second client of the same process
    /// takes it from the first; once none is left, the next one reads the process's own stat again (its ID may be
    /// another process's now), and the kept line only when that stat is not the one it was read with.
    @Test func aProcessWithAClientConnectedHasItsLineReadOnce() async throws {
        try await Self.withInfos { infos in
            let reads = Locked<[Int32]>([])
            let starts = Locked<[Int32: UInt64]>([40: 7, 50: 7])
            var sieve = EventSieve(
                lines: ProcessLineMemory { processID in
                    reads.withLock { $0.append(processID) }
                    if processID >= 1_000 { return ProcessStat(parent: 1, start: 1) }
                    return ProcessStat(parent: 1_000 + processID, start: starts.withLock { $0[processID] })
                })
            func named(_ index: UInt32, _ processID: Int32) -> PulsePrefetch.Info {
                var client = infos.ownClient
                client.index = index
                client.properties["application.process.id"] = "\(processID)"
                return .client(client)
            }
            #expect(sieve.sift(.changed(.client, .change, index: 1), info: named(1, 40)) == .keep)
            #expect(sieve.sift(.changed(.client, .change, index: 2), info: named(2, 40)) == .keep)
            #expect(sieve.sift(.changed(.client, .change, index: 3), info: named(3, 50)) == .keep)
            #expect(reads.withLock { $0 } == [40, 1_040, 50, 1_050])
            #expect(sieve.clientLines[2]?.line == [40, 1_040])
            #expect(sieve.clientLines[3]?.line == [50, 1_050])
            // The first client goes: the second still has the line for a third.
            #expect(sieve.sift(.changed(.client, .remove, index: 1), info: nil) == .keep)
            #expect(sieve.sift(.changed(.client, .change, index: 4), info: named(4, 40)) == .keep)
            #expect(reads.withLock { $0 } == [40, 1_040, 50, 1_050])
            #expect(sieve.clientLines[4]?.line == [40, 1_040])
            // None of the process is left: its next client's process is read, the same process, its line kept.
            #expect(sieve.sift(.changed(.client, .remove, index: 2), info: nil) == .keep)
            #expect(sieve.sift(.changed(.client, .remove, index: 4), info: nil) == .keep)
            #expect(sieve.sift(.changed(.client, .change, index: 5), info: named(5, 40)) == .keep)
            #expect(reads.withLock { $0 } == [40, 1_040, 50, 1_050, 40])
            #expect(sieve.clientLines[5]?.line == [40, 1_040])
            // Another process took the ID: its line is read through.
            #expect(sieve.sift(.changed(.client, .remove, index: 5), info: nil) == .keep)
            starts.withLock { $0[40] = 8 }
            #expect(sieve.sift(.changed(.client, .change, index: 6), info: named(6, 40)) == .keep)
            #expect(reads.withLock { $0 } == [40, 1_040, 50, 1_050, 40, 40, 1_040])
        }
    }

    @Test func streamsAndTheServerGoToTheLoopAndCardsAndModulesDoNot() {
        var sieve = EventSieve()
        for change in [PulseChange.new, .change, .remove] {
            #expect(sieve.sift(.changed(.sinkInput, change, index: 7), info: nil) == .queue)
            #expect(sieve.sift(.changed(.sourceOutput, change, index: 7), info: nil) == .queue)
            #expect(sieve.sift(.changed(.card, change, index: 7), info: nil) == .keep)
            #expect(sieve.sift(.changed(.module, change, index: 7), info: nil) == .keep)
        }
        #expect(sieve.sift(.changed(.server, .change, index: 0), info: nil) == .queue)
        #expect(sieve.sift(.disconnected(reason: "gone"), info: nil) == .queue)
    }
}
