import Locking
import AudioSessionClient
import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import Testing

/// The library against a real daemon in this process (no sound server). Blocking calls run on threads of
/// their own (`onThread`), as an app's would.
@Suite(.timeLimit(.minutes(3))) struct AudioSessionClientTests {
    @Test func categoryAndActivationRoundTrip() async throws {
        try await TestDaemon.with { daemon in
            try await onThread {
                let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
                defer { music.close() }
                try music.setCategory(.playback, mode: .spokenAudio, options: [.duckOthers])
                try music.setActive(true)
                #expect(music.category == .playback)
                #expect(music.mode == .spokenAudio)
                #expect(music.categoryOptions == [.duckOthers, .mixWithOthers])
                #expect(music.isActive)
                #expect(music.isOtherAudioPlaying == false)
                #expect(music.secondaryAudioShouldBeSilencedHint == false)
                #expect(music.currentRoute.outputs.map(\.portType) == [.speaker])
                #expect(music.soundServerEnforces == false)
                let session = try #require(try daemon.status().sessions.first { $0.app == "music" })
                #expect(session.category == .playback && session.mode == .spokenAudio && session.state == .active)
                try music.setActive(false, options: .notifyOthersOnDeactivation)
                #expect(!music.isActive)
            }
        }
    }

    @Test func theSpeakerOverrideIsForPlayAndRecordOnly() async throws {
        try await TestDaemon.with { daemon in
            try await onThread {
                let call = AudioSession(socketPath: daemon.socketPath, appName: "intercom")
                defer { call.close() }
                try call.connect()
                #expect(try daemon.status().sessions.contains { $0.app == "intercom" })
                try call.setCategory(.playback)
                let refused = #expect(throws: AudioSessionError.self) { try call.overrideOutputAudioPort(.speaker) }
                #expect(refused?.code == .badParam)
                #expect(refused?.rule == "R5")
                try daemon.control(.connectPort(port: "headphones"))
                try call.setCategory(.playAndRecord, mode: .voiceChat)
                func output() throws -> AudioSessionPolicy.Port? {
                    try daemon.status().sessions.first { $0.app == "intercom" }?.currentRoute.output
                }
                #expect(try output() == .headphones)
                try call.overrideOutputAudioPort(.speaker)
                #expect(try output() == .speaker)
                #expect(call.currentRoute.outputs.map(\.portType) == [.speaker])
                try call.overrideOutputAudioPort(.none)
                #expect(try output() == .headphones)
            }
        }
    }

    @Test func illegalOptionIsBadParamAndChangesNothing() async throws {
        try await TestDaemon.with { daemon in
            try await onThread {
                let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
                defer { music.close() }
                try music.setCategory(.playback)
                let error = #expect(throws: AudioSessionError.self) {
                    try music.setCategory(.ambient, options: [.defaultToSpeaker])
                }
                #expect(error?.code == .badParam)
                #expect(error?.rule == "C4")
                #expect(music.category == .playback)
                #expect(try daemon.status().sessions.first?.category == .playback)
            }
        }
    }

    @Test func aCallInterruptsAndLetsPlaybackResume() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            let phone = AudioSession(socketPath: daemon.socketPath, appName: "phone", isCall: true)
            defer {
                music.close()
                phone.close()
            }
            try await onThread {
                try music.setCategory(.playback)
                try music.setActive(true)
            }
            let interruptions = music.interruptions
            try await onThread {
                try phone.setCategory(.playAndRecord, mode: .voiceChat)
                try phone.setActive(true)
                #expect(eventually { !music.isActive })
                try phone.setActive(false, options: .notifyOthersOnDeactivation)
            }
            let received = await first(2, of: interruptions)
            #expect(received.map(\.type) == [.began, .ended])
            #expect(received.first?.reason == .default)
            #expect(received.first?.rule == "A6")
            #expect(received.first?.because == "interrupted by phone (A6)")
            #expect(received.last?.shouldResume == true)
            #expect(received.last?.options.contains(.shouldResume) == true)
            try await onThread { try music.setActive(true) }
            #expect(music.isActive)
        }
    }

    @Test func aReportedStreamIsDuckedAndGivenBack() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            let nav = AudioSession(socketPath: daemon.socketPath, appName: "nav")
            defer {
                music.close()
                nav.close()
            }
            let called = Collected<StreamVerdictUpdate>()
            let stream = try await onThread {
                try music.setCategory(.playback)
                return try music.startStream(direction: .output) { called.append($0) }
            }
            #expect(stream.current?.verdict == .audible)
            #expect(stream.current?.gain == 1)
            #expect(music.isActive)
            let verdicts = stream.verdicts
            try await onThread {
                try nav.setCategory(.playback, mode: .voicePrompt, options: [.duckOthers])
                try nav.setActive(true)
                try nav.setActive(false, options: .notifyOthersOnDeactivation)
            }
            let received = await first(2, of: verdicts)
            #expect(received.map(\.verdict) == [.ducked, .audible])
            #expect(received.first?.gain == 0.25)
            #expect(received.first?.fadeMilliseconds == 200)
            #expect(received.first?.currentRoute.outputs.map(\.portType) == [.speaker])
            #expect(called.values.map(\.verdict) == [.audible, .ducked, .audible])
            let busy = try await onThread {
                #expect(throws: AudioSessionError.self) { try music.setActive(false) }
            }
            #expect(busy?.code == .isBusy && busy?.tookEffect == true)
            #expect(!music.isActive)
            try await onThread {
                try stream.pause()
                try stream.remove()
            }
            #expect(try await onThread { try daemon.status().streams }.isEmpty)
        }
    }

    @Test func aNewDeviceChangesTheRoute() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            try await onThread {
                try music.setCategory(.playback)
                try music.setActive(true)
            }
            let changes = music.routeChanges
            try await onThread { try daemon.control(.connectPort(port: "headphones")) }
            let change = try #require(await first(1, of: changes).first)
            #expect(change.reason == .newDeviceAvailable)
            #expect(change.previousRoute.outputs.map(\.portType) == [.speaker])
            #expect(change.currentRoute.outputs.map(\.portType) == [.headphones])
            #expect(music.currentRoute.outputs.map(\.portType) == [.headphones])
        }
    }

    @Test func notificationsArriveInOrder() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            let phone = AudioSession(socketPath: daemon.socketPath, appName: "phone", isCall: true)
            defer {
                music.close()
                phone.close()
            }
            try await onThread {
                try music.setCategory(.playback)
                try music.setActive(true)
            }
            let notifications = music.notifications
            try await onThread {
                try daemon.control(.connectPort(port: "headphones"))
                try phone.setCategory(.playAndRecord, mode: .voiceChat)
                try phone.setActive(true)
                try phone.setActive(false, options: .notifyOthersOnDeactivation)
                try daemon.control(.disconnectPort(port: "headphones"))
            }
            let received = await first(3, of: notifications)
            guard received.count == 3 else {
                Issue.record("expected 3 notifications, got \(received)")
                return
            }
            guard case .routeChange(let change) = received[0], case .interruption(let began) = received[1],
                case .interruption(let ended) = received[2]
            else {
                Issue.record("unexpected order: \(received)")
                return
            }
            #expect(change.reason == .newDeviceAvailable)
            #expect(began.type == .began)
            #expect(ended.type == .ended && ended.shouldResume)
        }
    }

    @Test func aDaemonRestartIsLostThenResetWithTheSessionRestored() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            let stream = try await onThread {
                try music.setCategory(.playback, options: [.mixWithOthers])
                try music.setActive(true)
                return try music.startStream(direction: .output)
            }
            let notifications = music.notifications
            await daemon.stop()
            let lost = await first(1, of: notifications)
            guard case .mediaServicesWereLost(let note)? = lost.first else {
                Issue.record("expected mediaServicesWereLost, got \(lost)")
                return
            }
            #expect(note.because.contains(daemon.socketPath))
            #expect(!music.isActive)
            // Configuring while the daemon is away is remembered; activating is not possible.
            try await onThread {
                try music.setCategory(.playback, mode: .moviePlayback, options: [.mixWithOthers])
                let error = #expect(throws: AudioSessionError.self) { try music.setActive(true) }
                #expect(error?.code == .daemonUnavailable)
            }
            try await daemon.start()
            let reset = await first(1, of: notifications)
            guard case .mediaServicesWereReset? = reset.first else {
                Issue.record("expected mediaServicesWereReset, got \(reset)")
                return
            }
            #expect(music.isActive)
            let status = try await onThread { try daemon.status() }
            let session = try #require(status.sessions.first { $0.app == "music" })
            #expect(session.category == .playback && session.mode == .moviePlayback)
            #expect(session.options.contains("mixWithOthers"))
            #expect(session.state == .active)
            #expect(status.streams.map(\.session) == [session.session])
            #expect(status.streams.first?.running == true)
            #expect(stream.current?.verdict == .audible)
        }
    }

    @Test func withoutADaemonActivatingSaysWhereItLooked() async throws {
        let path = FileManager.default.temporaryDirectory.path + "/none-\(UUID().uuidString.prefix(8))/control"
        try await onThread {
            let music = AudioSession(socketPath: path, appName: "music")
            defer { music.close() }
            try music.setCategory(.playback)
            #expect(music.category == .playback)
            let error = #expect(throws: AudioSessionError.self) { try music.setActive(true) }
            #expect(error?.code == .daemonUnavailable)
            #expect(error?.message.contains(path) == true)
            let illegal = #expect(throws: AudioSessionError.self) {
                try music.setCategory(.ambient, options: [.defaultToSpeaker])
            }
            #expect(illegal?.rule == "C4")
        }
    }

    @Test func closingEndsTheSequences() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            try await onThread { try music.setCategory(.playback) }
            let notifications = music.notifications
            music.close()
            var count = 0
            for await _ in notifications { count += 1 }
            #expect(count == 0)
            let error = try await onThread { #expect(throws: AudioSessionError.self) { try music.setActive(true) } }
            #expect(error?.code == .daemonUnavailable)
        }
    }

    @Test func aVerdictCallbackMayCallTheSession() async throws {
        try await TestDaemon.with { daemon in
            let music = AudioSession(socketPath: daemon.socketPath, appName: "music")
            defer { music.close() }
            let seen = Collected<Bool>()
            let onTheCallersThread = Collected<Bool>()
            let stream = try await onThread {
                try music.setCategory(.playback)
                let caller = pthread_self()
                // Runs on this thread, inside startStream's own request, the lock held: must not wait on itself.
                return try music.startStream(direction: .output) { _ in
                    onTheCallersThread.append(pthread_equal(pthread_self(), caller) != 0)
                    seen.append(music.isOtherAudioPlaying)
                }
            }
            #expect(seen.values == [false])
            #expect(onTheCallersThread.values == [true])
            #expect(stream.current?.verdict == .audible)
            #expect(music.isActive)
        }
    }
}
