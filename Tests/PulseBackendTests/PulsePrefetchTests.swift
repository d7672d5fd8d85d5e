import Glibc
import Locking
import PulseBackend
import Testing

/// `listen(prefetchingNewStreams:)`: a new stream's (or client's) info comes with its event, asked for on
/// libpulse's thread; the events keep the order they were read in; and the info is current only until another
/// write to the stream is sent (for a device or client, until any other request is).
@Suite("New streams' info with their events", .timeLimit(.minutes(4)))
struct PulsePrefetchTests {
    @Test func aNewStreamsEventComesWithItsInfoAndTheEventsKeepTheirOrder() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let heard = Locked<[(PulseEvent, PulsePrefetch?)]>([])
            connection.listen(prefetchingNewStreams: true) { event, prefetch in
                heard.withLock { $0.append((event, prefetch)) }
            }
            // A second subscriber of the same connection sees the same events in the same order.
            let plain = Locked<[PulseEvent]>([])
            connection.listen { event in plain.withLock { $0.append(event) } }

            let music = try await PulsePlaybackStream.open(
                server: server.server,
                name: "music",
                properties: ["media.role": "music"]
            )
            let index = music.sinkInputIndex
            // Closed at once: its new event's info may come back "gone", and the removal must still come after it.
            let brief = try await PulsePlaybackStream.open(server: server.server, name: "brief", properties: [:])
            let briefIndex = brief.sinkInputIndex
            brief.close()
            try await eventually("both streams' events, the brief one's removal last") {
                heard.withLock { $0.contains { $0.0 == .changed(.sinkInput, .remove, index: briefIndex) } }
            }

            let events = heard.withLock { $0 }
            let new = try #require(events.first { $0.0 == .changed(.sinkInput, .new, index: index) })
            guard case .sinkInput(let input)? = new.1?.info else {
                Issue.record("the new stream's event came without its info: \(String(describing: new.1))")
                return
            }
            #expect(input?.index == index && input?.properties["media.role"] == "music")
            // No module-stream-restore on this server: no restore key, no saved entry read.
            #expect(new.1?.restoreEntryRead == false)
            let order = events.map(\.0)
            let briefNew = try #require(order.firstIndex(of: .changed(.sinkInput, .new, index: briefIndex)))
            let briefRemoved = try #require(order.firstIndex(of: .changed(.sinkInput, .remove, index: briefIndex)))
            #expect(briefNew < briefRemoved, "\(order)")
            // Only the new objects' events, and the clients' changes (a client names itself in one), ask for info.
            #expect(
                events.filter {
                    switch $0.0 {
                    case .changed(_, .new, _), .changed(.client, .change, _): false
                    default: true
                    }
                }.allSatisfy { $0.1 == nil }
            )
            // Compared with what the first subscriber has heard by then, not with `order`: events after it (the
            // brief stream's client leaving) may still come to both.
            try await eventually("the plain subscriber heard the same") {
                plain.withLock { $0 } == heard.withLock { $0.map(\.0) }
            }
            music.close()
        }
    }

    /// A connection made with `appPropertyKeys` keeps only those of an app's stream's and client's properties, in
    /// the info that comes with a new stream's or client's event and in the info it asks for; devices keep all.
    @Test func aConnectionKeepsOnlyTheAppPropertiesItIsToldTo() async throws {
        try await withPrivatePulseServer { server in
            let keys = ["media.role", "application.name", "no.such.property"]
            let connection = try await connected(to: server, appPropertyKeys: keys)
            defer { connection.close() }
            let prefetched = Locked<[PulsePrefetch.Info]>([])
            connection.listen(prefetchingNewStreams: true) { _, prefetch in
                if let info = prefetch?.info { prefetched.withLock { $0.append(info) } }
            }
            let music = try await PulsePlaybackStream.open(
                server: server.server,
                name: "music",
                properties: ["media.role": "music", "media.name": "a song"]
            )
            defer { music.close() }
            let microphone = try await PulseRecordStream.open(
                server: server.server,
                name: "microphone",
                properties: ["media.role": "phone"]
            )
            defer { microphone.close() }
            let musicInfos = {
                prefetched.withLock { infos in
                    infos.compactMap { info -> PulseSinkInput? in
                        guard case .sinkInput(let input?) = info else { return nil }
                        return input.index == music.sinkInputIndex ? input : nil
                    }
                }
            }
            // What the stream's library adds is left out too (its process, its binary), but for the app's name.
            let wanted = ["media.role": "music", "application.name": "music"]
            let asked = try #require(try await connection.sinkInput(music.sinkInputIndex))
            #expect(asked.properties == wanted)
            let recording = try #require(try await connection.sourceOutput(microphone.sourceOutputIndex))
            #expect(recording.properties == ["media.role": "phone", "application.name": "microphone"])
            try await eventually("the new stream's info came with its event") {
                !musicInfos().isEmpty
            }
            let withEvent = musicInfos()
            #expect(withEvent.map(\.properties) == [wanted])
            // The app's client, asked for and as it came with its events: its name, not its process.
            let musicClient = try #require(try await connection.clients().first { $0.name == "music" })
            #expect(musicClient.properties == ["application.name": "music"])
            let clientsWithEvents = prefetched.withLock { infos in
                infos.compactMap { info -> PulseClient? in
                    guard case .client(let client?) = info else { return nil }
                    return client.name == "music" ? client : nil
                }
            }
            #expect(!clientsWithEvents.isEmpty)
            #expect(clientsWithEvents.allSatisfy { $0.properties == ["application.name": "music"] })
            // A device keeps every property: the port rules may name any.
            let sinks = try await connection.sinks()
            #expect(sinks.allSatisfy { $0.properties["device.description"] != nil })
        }
    }

    /// An app's client connects, and then names itself, before it opens its stream: its info (the process, for
    /// the daemon's process line) comes with those events.
    @Test func aNewClientsEventsComeWithItsInfo() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let clients = Locked<[(index: UInt32, PulseClient?)]>([])
            connection.listen(prefetchingNewStreams: true) { event, prefetch in
                if case .changed(.client, let change, let index) = event, change != .remove {
                    guard case .client(let client)? = prefetch?.info else {
                        Issue.record("\(event) came without the client's info: \(String(describing: prefetch))")
                        return
                    }
                    clients.withLock { $0.append((index, client)) }
                }
            }
            let app = try await PulsePlaybackStream.open(server: server.server, name: "app", properties: [:])
            defer { app.close() }
            let clientIndex = try #require(try await connection.sinkInput(app.sinkInputIndex)?.clientIndex)
            try await eventually("the app's client came with its process") {
                let process = "\(getpid())"
                return clients.withLock {
                    $0.contains { $0.index == clientIndex && $0.1?.properties["application.process.id"] == process }
                }
            }
        }
    }

    @Test func aNewPlaybackStreamComesWithItsSavedRestoreEntry() async throws {
        try await withPrivatePulseServer(streamRestore: true) { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let saved = try await saveMusicEntry(on: connection, at: 2)
            let key = saved.key
            let prefetched = Locked<[PulsePrefetch]>([])
            connection.listen(prefetchingNewStreams: true) { _, prefetch in
                if let prefetch { prefetched.withLock { $0.append(prefetch) } }
            }
            let music = try await PulsePlaybackStream.open(
                server: server.server,
                name: "music",
                properties: ["media.role": "music"]
            )
            defer { music.close() }
            try await eventually("the new stream's info") {
                prefetched.withLock { $0.contains { if case .sinkInput = $0.info { true } else { false } } }
            }
            let first = try #require(
                prefetched.withLock { $0.first { if case .sinkInput = $0.info { true } else { false } } }
            )
            guard case .sinkInput(let input?) = first.info else {
                Issue.record("no info: \(first.info)")
                return
            }
            #expect(input.properties["module-stream-restore.id"] == key)
            #expect(first.restoreEntryRead)
            #expect(first.restoreEntry?.key == key && first.restoreEntry?.volume == saved.volume)
        }
    }

    @Test func thePrefetchedInfoIsCurrentUntilAWriteToItsStreamIsSent() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let prefetched = Locked<PulsePrefetch?>(nil)
            connection.listen(prefetchingNewStreams: true) { _, prefetch in
                if let prefetch { prefetched.withLock { $0 = prefetch } }
            }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            try await eventually("the new stream's info") { prefetched.withLock { $0 } != nil }
            let info = try #require(prefetched.withLock { $0 })
            #expect(connection.isCurrent(info))
            // Our own write, sent after the info was asked for: the info no longer shows what a query would.
            _ = await connection.apply([.sinkInputMute(music.sinkInputIndex, true)])
            #expect(!connection.isCurrent(info))
        }
    }

    /// Only a stream's own writes make its info stale: another stream's write leaves it current (a turn's moves
    /// go after its other writes, and the echoes read in between are not asked for again), while the saved
    /// restore entry read with it, which a write to any stream of its key may change, is not.
    @Test func anotherStreamsWriteLeavesAStreamsInfoCurrentButNotItsRestoreEntry() async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let prefetched = newStreamsPrefetched(on: connection)
            let other = try await PulsePlaybackStream.open(server: server.server, name: "other", properties: [:])
            defer { other.close() }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            try await eventually("the music's info") { prefetched.withLock { $0[music.sinkInputIndex] } != nil }
            let info = try #require(prefetched.withLock { $0[music.sinkInputIndex] })
            #expect(connection.isCurrent(info) && connection.isRestoreEntryCurrent(info))
            _ = await connection.apply([.sinkInputMute(other.sinkInputIndex, true)])
            #expect(connection.isCurrent(info))
            #expect(!connection.isRestoreEntryCurrent(info))
            _ = await connection.apply([.sinkInputMute(music.sinkInputIndex, true)])
            #expect(!connection.isCurrent(info))
        }
    }

    /// A change read while a request of our own is unanswered: its info, asked for after the request was sent,
    /// need not show it (pipewire-pulse may answer it from the values before the request), so it is never
    /// current, even once the request is answered.
    @Test func aPrefetchAskedWhileOurOwnRequestIsUnansweredIsNeverCurrent() async throws {
        try await withMusicAndItsChanges { connection, index, changes, user in
            let userVolume = PulseVolume(uniform: PulseVolume.norm / 2, channels: 2)
            // On libpulse's thread, which reads nothing meanwhile: the user's change is made (its event is sent to
            // us before the answer to any request of ours sent after it), then our own write is sent. The change
            // is read after that, while the write waits for its answer.
            await withTaskExecutorPreference(connection.executor) {
                let userChanged = Locked(false)
                Task {
                    _ = await user.apply([.sinkInputVolume(index, userVolume)])
                    userChanged.withLock { $0 = true }
                }
                while !userChanged.withLock({ $0 }) { usleep(1000) }
                _ = await connection.apply([.sinkInputMute(index, true)])
            }
            func showsTheUsersChange(_ prefetch: PulsePrefetch?) -> Bool {
                guard case .sinkInput(let input?)? = prefetch?.info else { return false }
                return input.volume == userVolume
            }
            try await eventually("the user's change handed over") {
                changes.withLock { $0.contains(where: showsTheUsersChange) }
            }
            let prefetch = try #require(changes.withLock { $0.first(where: showsTheUsersChange) } ?? nil)
            #expect(!connection.isCurrent(prefetch))
        }
    }

    /// `prefetchingChanges`: each of a stream's changes comes with its info, asked for after it was read, so the
    /// last change shows the last write.
    @Test func everyChangeComesWithItsInfoAndTheLastShowsTheLastWrite() async throws {
        try await withMusicAndItsChanges { _, index, changes, user in
            // Another client (the user) turns the music down in twenty steps sent at once: their change events
            // come in a run.
            let steps = (1...20).map { PulseVolume(uniform: PulseVolume.norm - UInt32($0) * 1000, channels: 2) }
            let errors = await user.apply(steps.map { .sinkInputVolume(index, $0) })
            #expect(errors.allSatisfy { $0 == nil })
            try await eventually("the last change handed over shows the last step") {
                guard case .sinkInput(let input?)? = changes.withLock({ $0.last })??.info else { return false }
                return input.volume == steps.last
            }
            let handedOver = changes.withLock { $0 }
            #expect(handedOver.allSatisfy { if case .sinkInput? = $0?.info { true } else { false } })
        }
    }

    /// A private server playing a music stream, a connection that hands over each of the music's changes with its
    /// info (`prefetchingChanges`; nil where the query failed), and another client's connection: the user's.
    func withMusicAndItsChanges(
        _ body: (
            _ connection: PulseConnection, _ music: UInt32, _ changes: Locked<[PulsePrefetch?]>, _ user: PulseConnection
        ) async throws -> Void
    ) async throws {
        try await withPrivatePulseServer { server in
            let connection = try await connected(to: server)
            defer { connection.close() }
            let music = try await PulsePlaybackStream.open(server: server.server, name: "music", properties: [:])
            defer { music.close() }
            let index = music.sinkInputIndex
            let changes = Locked<[PulsePrefetch?]>([])
            connection.listen(prefetchingNewStreams: true, prefetchingChanges: true) { event, prefetch in
                if event == .changed(.sinkInput, .change, index: index) { changes.withLock { $0.append(prefetch) } }
            }
            let user = try await connected(to: server, name: "user")
            defer { user.close() }
            try await body(connection, index, changes, user)
        }
    }
}
