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
            let prefetched = Locked<[UInt32: PulsePrefetch]>([:])
            connection.listen(prefetchingNewStreams: true) { event, prefetch in
                if case .changed(.sinkInput, .new, let index) = event, let prefetch {
                    prefetched.withLock { $0[index] = prefetch }
                }
            }
            let core = try connection.core("test")
            let missing = { try core.mainloop.withLock("test") { _ in core.streamRestoreMissing } }
            let readsSent = { try core.mainloop.withLock("test") { _ in core.restoreReadsSent } }
            #expect(try missing() == false)

            // The first stream's read is sent and fails: the connection notes the module missing.
            let first = try await PulsePlaybackStream.open(
                server: server.server,
                name: "first",
                properties: ["media.role": "music"]
            )
            defer { first.close() }
            try await eventually("the first stream's info") {
                prefetched.withLock { $0[first.sinkInputIndex] != nil }
            }
            #expect(prefetched.withLock { $0[first.sinkInputIndex]?.restoreEntryRead } == false)
            #expect(try missing())
            #expect(try readsSent() == 1)

            // The second's is not sent; its info still comes, as unread as the first's.
            let second = try await PulsePlaybackStream.open(
                server: server.server,
                name: "second",
                properties: ["media.role": "music"]
            )
            defer { second.close() }
            try await eventually("the second stream's info") {
                prefetched.withLock { $0[second.sinkInputIndex] != nil }
            }
            #expect(prefetched.withLock { $0[second.sinkInputIndex]?.restoreEntryRead } == false)
            #expect(try missing())
            #expect(try readsSent() == 1)

            // Loaded now: the module's event clears the note, and the next stream comes with its saved entry.
            _ = try server.shared.pactl(["load-module", "module-stream-restore"])
            try await eventually("the module's event read") { try missing() == false }
            let key = "sink-input-by-media-role:music"
            let saved = PulseStreamRestoreEntry(
                key: key,
                volume: PulseVolume(uniform: PulseVolume.norm / 4, channels: 2),
                muted: false,
                device: nil
            )
            try await connection.writeStreamRestoreEntry(saved)
            let third = try await PulsePlaybackStream.open(
                server: server.server,
                name: "third",
                properties: ["media.role": "music"]
            )
            defer { third.close() }
            try await eventually("the third stream's info") {
                prefetched.withLock { $0[third.sinkInputIndex] != nil }
            }
            let read = try #require(prefetched.withLock { $0[third.sinkInputIndex] })
            #expect(read.restoreEntryRead)
            #expect(try readsSent() == 2)
            #expect(read.restoreEntry?.key == key && read.restoreEntry?.volume == saved.volume)
        }
    }
}
