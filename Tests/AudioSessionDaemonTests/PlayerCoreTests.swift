import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Foundation
import Testing

@testable import AudioSessionDaemon

/// Section 6b in the daemon's core, without a bus or a sound server: players reported by the bus shell, matched
/// to streams by process, and the engine's pauses and plays turned into commands.
@Suite struct PlayerCoreTests {
    static let mpv = "org.mpris.MediaPlayer2.mpv"
    static let music = StreamOrigin.sinkInput(10)
    static let call = StreamOrigin.sinkInput(20)

    static func core() -> DaemonCore {
        DaemonCore(engine: PolicyEngine(outputs: [.speaker], inputs: [.builtInMic]), controlUserID: 1000)
    }

    /// mpv's stream, played by process 4242 (a child of 4000, a child of 300).
    static func musicStream(running: Bool = true, processLine: [Int32] = [4242, 4000, 300]) -> SoundStream {
        SoundStream(
            origin: music, direction: .output,
            properties: ["application.name": "mpv", "media.role": "music", "application.process.id": "\(processLine.first ?? 0)"],
            isRunning: running, processLine: processLine)
    }

    static let callStream = SoundStream(
        origin: call, direction: .output, properties: ["application.name": "paplay", "media.role": "phone", "application.process.id": "777"],
        isRunning: true, processLine: [777, 300])

    static func commands(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap { if case .callPlayer(let name, let command, let timeout) = $0 { "\(command.rawValue) \(name) \(timeout)" } else { nil } }
    }

    static func logs(_ effects: [DaemonEffect]) -> [String] {
        effects.compactMap { if case .log(let line) = $0 { line.text } else { nil } }
    }

    static func timers(_ effects: [DaemonEffect]) -> [(TimerID, Int)] {
        effects.compactMap { if case .startTimer(let timer, let ms) = $0 { (timer, ms) } else { nil } }
    }

    /// The player's session, its stream running, and a call that interrupts it: the effects of the call.
    static func callInterrupting(_ core: inout DaemonCore) -> [DaemonEffect] {
        core.handle(.sound(.streamSeen(callStream)))
    }

    /// The call's stream goes, and its grace (U2) runs out: its session ends with notifyOthers.
    static func endCall(_ core: inout DaemonCore) -> [DaemonEffect] {
        let gone = core.handle(.sound(.streamGone(call)))
        guard let grace = timers(gone).first?.0 else { return gone }
        return gone + core.handle(.timerFired(grace))
    }

    // MARK: Matching a stream to a player

    @Test(arguments: [
        // (players by process, the stream's process line, the player expected)
        ([("org.mpris.MediaPlayer2.mpv", Int32(4242))], [Int32(4242), 4000], "org.mpris.MediaPlayer2.mpv"),
        ([("org.mpris.MediaPlayer2.firefox", 4000)], [4242, 4000, 300], "org.mpris.MediaPlayer2.firefox"),
        ([("org.mpris.MediaPlayer2.shell", 300), ("org.mpris.MediaPlayer2.firefox", 4000)], [4242, 4000, 300], "org.mpris.MediaPlayer2.firefox"),
        ([("org.mpris.MediaPlayer2.b.instance2", 4242), ("org.mpris.MediaPlayer2.a.instance1", 4242)], [4242], "org.mpris.MediaPlayer2.a.instance1"),
        ([("org.mpris.MediaPlayer2.mpv", 5555)], [4242, 4000, 300], nil),
        ([("org.mpris.MediaPlayer2.mpv", 4242)], [], nil),
    ] as [([(String, Int32)], [Int32], String?)])
    func aStreamBelongsToThePlayerOfItsProcessOrItsNearestAncestor(players: [(String, Int32)], line: [Int32], expected: String?) {
        var table = PlayerTable()
        for (name, process) in players { table.add(name, processID: process) }
        #expect(table.player(forProcessLine: line) == expected)
    }

    @Test(arguments: [
        ("org.mpris.MediaPlayer2.mpv", true), ("org.mpris.MediaPlayer2.chromium.instance12", true),
        ("org.mpris.MediaPlayer2.", false), ("org.mpris.MediaPlayer2", false), ("org.freedesktop.DBus", false),
        (":1.42", false),
    ])
    func onlyMprisNamesArePlayers(name: String, isPlayer: Bool) {
        #expect(PlayerTable.isPlayerName(name) == isPlayer)
    }

    @Test(arguments: [
        ("4242 (mpv) S 4000 4242 4000 0", Int32(4000)),
        ("17 (a) b (c) S 9 17 17", 9),
        ("17 (no parent field", nil),
        ("", nil),
        ("4242 (mpv) S 4000", 4000),
        ("4242 (mpv)  S  4000  4242", 4000),
        ("4242 (mpv) S", nil),
        ("4242 (mpv) S 40x0 1", nil),
        ("4242 (mpv) S 99999999999 1", nil),
    ] as [(String, Int32?)])
    func theParentIsReadPastTheCommandName(stat: String, parent: Int32?) {
        #expect(ProcessLine.stat(inStat: Array(stat.utf8))?.parent == parent)
    }

    @Test func theProcessLineStopsAtProcessOneAtAMissingProcessAndAtALoop() throws {
        let proc = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: proc) }
        for (process, parent) in [(40, 30), (30, 20), (20, 1), (60, 50), (7, 8), (8, 7)] {
            try FileManager.default.createDirectory(atPath: "\(proc)/\(process)", withIntermediateDirectories: true)
            try "\(process) (x y) S \(parent) 0 0".write(toFile: "\(proc)/\(process)/stat", atomically: true, encoding: .utf8)
        }
        #expect(ProcessLine.of(40, proc: proc) == [40, 30, 20])
        #expect(ProcessLine.of(60, proc: proc) == [60])
        #expect(ProcessLine.of(7, proc: proc) == [7, 8])
        #expect(ProcessLine.of(99, proc: proc) == [])
    }

    // MARK: Pausing and playing

    @Test func aCallMutesThePlayersStreamThenPausesItAndPlaysItAfter() throws {
        var core = Self.core()
        _ = core.handle(.player(.appeared(busName: Self.mpv, processID: 4000)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        let player = try #require(core.engine.sessionIDs.first)
        #expect(core.engine.snapshot(of: player)?.mediaPlayer == .playing)

        let effects = Self.callInterrupting(&core)
        let muted = effects.firstIndex { if case .enforce(Self.music, let verdict) = $0 { verdict.level == .silent } else { false } }
        let paused = effects.firstIndex { if case .callPlayer(Self.mpv, .pause, 250) = $0 { true } else { false } }
        #expect(muted != nil && paused != nil && muted! < paused!, "muted before the pause is sent (P1)")
        // The answer has the player timeout; the stream's stop, reported once settled, has a second more.
        #expect(Self.timers(effects).map(\.1).contains(250 + DaemonCore.pausedStreamAllowanceMs))

        _ = core.handle(.player(.answered(busName: Self.mpv, .pause)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream(running: false))))
        #expect(core.engine.snapshot(of: player)?.mediaPlayer == .paused)
        let ended = Self.endCall(&core)
        #expect(Self.commands(ended) == ["Play \(Self.mpv) 250"])
    }

    @Test func aPlayerThatRegistersAfterItsStreamIsPausedByTheNextCall() {
        var core = Self.core()
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        let session = core.engine.sessionIDs.first!
        #expect(core.engine.snapshot(of: session)?.mediaPlayer == nil)
        let found = core.handle(.player(.appeared(busName: Self.mpv, processID: 4242)))
        #expect(Self.logs(found).contains { $0.contains("found after its stream") })
        #expect(core.engine.snapshot(of: session)?.mediaPlayer == .playing)
        #expect(Self.commands(Self.callInterrupting(&core)) == ["Pause \(Self.mpv) 250"])
    }

    @Test func aStreamOfAnotherProcessIsNotThePlayers() {
        var core = Self.core()
        _ = core.handle(.player(.appeared(busName: Self.mpv, processID: 4242)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream(processLine: [5000, 300]))))
        #expect(core.engine.snapshot(of: core.engine.sessionIDs.first!)?.mediaPlayer == nil)
        #expect(Self.commands(Self.callInterrupting(&core)) == [])
    }

    /// Item 8 of issue 14: every way a player can fail ends the same (P6: muted, never played by the daemon), and
    /// the log says so once.
    @Test(arguments: ["error", "vanished", "silentStream", "errorThenVanished"])
    func aBadPlayerIsMutedAsAnUnawareAppAndLoggedOnce(failure: String) throws {
        var core = Self.core()
        _ = core.handle(.player(.appeared(busName: Self.mpv, processID: 4242)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        let player = core.engine.sessionIDs.first!
        let call = Self.callInterrupting(&core)
        let timer = try #require(Self.timers(call).first { $0.1 > 250 }?.0)
        var after: [DaemonEffect] = []
        switch failure {
        case "error", "errorThenVanished":
            after = core.handle(.player(.failed(busName: Self.mpv, .pause, reason: "org.freedesktop.DBus.Error.NoReply")))
            #expect(after.contains(.cancelTimer(timer)))
            if failure == "errorThenVanished" { after += core.handle(.player(.vanished(busName: Self.mpv))) }
        case "vanished":
            after = core.handle(.player(.vanished(busName: Self.mpv)))
        default:
            // It answered, but the stream it was matched to plays on: not its stream, or it does not cork.
            after = core.handle(.player(.answered(busName: Self.mpv, .pause)))
            after += core.handle(.timerFired(timer))
        }
        after += core.handle(.timerFired(timer))  // late: ignored
        #expect(Self.logs(after).filter { $0.contains("(P6)") }.count == 1, "\(Self.logs(after))")
        #expect(core.engine.verdict(of: core.streamIDs[Self.music]!)?.level == .silent)
        #expect(!core.engine.isAnsweringPlayer(player))
        let ended = Self.endCall(&core)
        #expect(Self.commands(ended) == [])
        #expect(core.engine.verdict(of: core.streamIDs[Self.music]!)?.level == .audible, "nothing left muted")
    }

    @Test func theUserPlayingDuringTheCallIsObeyedAndNotPausedAgain() {
        var core = Self.core()
        _ = core.handle(.player(.appeared(busName: Self.mpv, processID: 4242)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        _ = Self.callInterrupting(&core)
        _ = core.handle(.sound(.streamSeen(Self.musicStream(running: false))))
        let played = core.handle(.sound(.streamSeen(Self.musicStream())))
        #expect(Self.commands(played) == [])
        let ended = Self.endCall(&core)
        #expect(Self.commands(ended) == [])
    }

    @Test func aPlayersSessionThatEndsFreesThePlayerForTheNext() throws {
        var core = Self.core()
        _ = core.handle(.player(.appeared(busName: Self.mpv, processID: 4242)))
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        let gone = core.handle(.sound(.streamGone(Self.music)))
        let grace = try #require(Self.timers(gone).first?.0)
        _ = core.handle(.timerFired(grace))
        #expect(core.engine.sessionIDs.isEmpty)
        #expect(core.players.entries[Self.mpv]?.session == nil)
        _ = core.handle(.sound(.streamSeen(Self.musicStream())))
        #expect(core.players.busName(of: core.engine.sessionIDs.first!) == Self.mpv)
    }
}
