import Locking
import Testing

@testable import PulseBackend

/// A server without module-stream-restore answers the read of its entries with "no such extension": once it has,
/// a new playback stream's info is asked for alone, until a module is loaded (which may be that one).
@Suite("The restore read on a server without module-stream-restore", .timeLimit(.minutes(4)))
struct PulsePrefetchRestoreTests {
    @Test func theReadStopsOnceTheModuleIsMissingAndStartsAgainWhenAModuleIsLoaded() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let prefetched = newStreamsPrefetched(on: connection)
            let core = try connection.core("test")
            let missing = { try core.mainloop.withLock("test") { _ in core.streamRestoreMissing } }
            let readsSent = { try core.mainloop.withLock("test") { _ in core.restoreReadsSent } }
            // A music stream, opened, and the info that came with its event.
            func music(_ name: String) async throws -> (PulsePlaybackStream, PulsePrefetch) {
                let stream = try await PulsePlaybackStream.open(
                    server: server.server,
                    name: name,
                    properties: ["media.role": "music"]
                )
                try await eventually("the \(name) stream's info") {
                    prefetched.withLock { $0[stream.sinkInputIndex] != nil }
                }
                return (stream, try #require(prefetched.withLock { $0[stream.sinkInputIndex] }))
            }
            #expect(try missing() == false)

            // The first stream's read is sent and fails: the connection notes the module missing.
            let (first, firstInfo) = try await music("first")
            defer { first.close() }
            #expect(!firstInfo.restoreEntryRead)
            #expect(try missing())
            #expect(try readsSent() == 1)

            // The second's is not sent; its info still comes, as unread as the first's.
            let (second, secondInfo) = try await music("second")
            defer { second.close() }
            #expect(!secondInfo.restoreEntryRead)
            #expect(try missing())
            #expect(try readsSent() == 1)

            // Loaded now: the module's event clears the note, and the next stream comes with its saved entry.
            _ = try server.shared.pactl(["load-module", "module-stream-restore"])
            try await eventually("the module's event read") { try missing() == false }
            let saved = try await saveMusicEntry(on: connection, at: 4)
            let (third, thirdInfo) = try await music("third")
            defer { third.close() }
            #expect(thirdInfo.restoreEntryRead)
            #expect(try readsSent() == 2)
            #expect(thirdInfo.restoreEntry == saved)
        }
    }
}
