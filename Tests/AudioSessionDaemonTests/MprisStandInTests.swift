import Locking
import AudioSessionProtocol
import AudioSessionTestSupport
import DBusBackend
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI

/// Issue 14 item 8, a bad player, live: a stand-in MPRIS player (this test process owns
/// `org.mpris.MediaPlayer2.standin` on a private bus and plays its music stream itself) that answers `Pause`
/// with an error. A real player that refuses could not be had here: mpv pauses whenever asked.
@Suite(.serialized, .timeLimit(.minutes(4))) struct MprisStandInTests {
    static let name = "org.mpris.MediaPlayer2.standin"

    @Test func aStandInPlayerThatAnswersThePauseWithAnErrorIsMutedInsteadAndLoggedOnce() async throws {
        let refusal = DBusMethodReply.error(
            name: "org.freedesktop.DBus.Error.NotSupported",
            message: "the stand-in cannot pause"
        )
        let standIn = try await StandInPlayer(answeringPause: refusal)
        defer { standIn.stop() }
        let (live, pauses) = (standIn.live, standIn.pauses)
        let music = try await PulsePlaybackStream.open(
            server: live.server.pulseServer, name: "stand-in music", properties: ["media.role": "music"])
        defer { music.close() }
        try await eventually("the daemon has the stand-in as the music's player") { live.daemonLog().contains(Self.name) }

        let phone = try PlayerLiveTests.client(live, app: "phone", call: true, .setCategory(.playAndRecord))
        try await eventually("the daemon gives the stand-in up (P6)", within: 20) { live.daemonLog().contains("(P6)") }
        #expect(live.daemonLog().contains("the stand-in cannot pause"), "the log says why")
        #expect(pauses.withLock { $0 } == 1)
        // The silence went to the sound server in the event that sent the pause; the error may come back first.
        try await eventually("the music is silenced as an unaware app's") {
            try await live.current(music.sinkInputIndex)?.isSilenced == true
        }

        _ = try phone.result(Request(.deactivate(notifyOthers: true)))
        try await eventually("the music is heard again after the call (U3)") {
            try await live.current(music.sinkInputIndex)?.isSilenced == false
        }
        #expect(live.daemonLog().components(separatedBy: "(P6)").count == 2, "logged once")
        #expect(pauses.withLock { $0 } == 1, "never asked again")
    }

    /// Section 6b: a stream played by a child of the player's process (as a browser plays from a child of the
    /// process that owns its player) is that player's. The child here is `paplay`, started by this test process,
    /// which owns the stand-in's name: only the stream's process line (its ancestors, read from /proc as its
    /// client connected) leads from the stream to the player; its own process has no player.
    @Test func aStreamPlayedByAChildOfThePlayersProcessIsThePlayers() async throws {
        let standIn = try await StandInPlayer(answeringPause: .empty)
        defer { standIn.stop() }
        let (live, pauses) = (standIn.live, standIn.pauses)
        let child = try live.play(role: "music")
        defer { child.terminate() }
        let music = try await live.stream(role: "music")
        #expect(music.properties["application.process.id"] == "\(child.processIdentifier)")

        let phone = try PlayerLiveTests.client(live, app: "phone", call: true, .setCategory(.playAndRecord))
        try await eventually("the call asks the stand-in, the child's player, to pause (P1)") {
            pauses.withLock { $0 } == 1
        }
        _ = try phone.result(Request(.deactivate(notifyOthers: true)))
    }
}

/// A stand-in MPRIS player: this test process owns `MprisStandInTests.name` on a private session bus and answers
/// `Pause` with `answeringPause` (counted in `pauses`); the daemon runs on a private PulseAudio, following that bus.
final class StandInPlayer: @unchecked Sendable {
    let bus: PrivateSessionBus
    let live: LiveDaemon
    let pauses = Locked(0)
    private let connection: DBusConnection
    private var object: DBusServedObjectHandle?

    init(answeringPause reply: DBusMethodReply) async throws {
        bus = try await PrivateSessionBus.start()
        do {
            live = try await LiveDaemon(
                .pulseaudio,
                environment: bus.environment,
                configuration: "playerTimeoutMs: 5000\n"
            )
        } catch {
            bus.stop()
            throw error
        }
        do {
            connection = try DBusConnection(.address(bus.address))
        } catch {
            live.stop()
            bus.stop()
            throw error
        }
        do {
            let pauses = pauses
            object = try await connection.serve(path: "/org/mpris/MediaPlayer2") { call in
                guard call.member == "Pause" else { return .unknownMethod(call) }
                pauses.withLock { $0 += 1 }
                return reply
            }
            _ = try await connection.requestName(MprisStandInTests.name)
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        object?.remove()
        connection.close()
        live.stop()
        bus.stop()
    }
}
