import AudioSessionDaemonCore
import AudioSessionProtocol
import AudioSessionTestSupport
import Foundation
import PulseBackend
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon

/// The daemon's state directory on a small tmpfs filled up (docs/STATE.md, "A full disk"): a request that
/// needs a state write is refused with `stateUnavailable`, a stream whose journal entry cannot be written is
/// not silenced, nothing is left silenced after `kill -9`, and the log tells of the failure once.
/// Mounting a tmpfs needs root (as the tests run in CI); elsewhere the suite is skipped, saying why.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: geteuid() == 0, "needs root to mount a small tmpfs"))
struct FullDiskTests {
    @Test func aRequestThatNeedsAStateWriteIsRefusedWithStateUnavailableWhileTheDiskIsFull() async throws {
        let rig = try await CrashRig(.pulseaudio)
        defer { rig.stop() }
        let disk = try SmallDisk(at: rig.stateDirectory)
        defer { disk.unmount() }
        try await rig.startDaemon()
        _ = try disk.fill()

        // A setting: refused, naming the file and the error, and not changed.
        let control = try rig.control()
        let switchReply = try control.call(Self.request(.setSilentSwitch(.silent)))
        let refusal = try #require(switchReply.error, "the switch was flipped although it could not be kept")
        print("full disk: setSilentSwitch: \(refusal.code): \(refusal.message)")
        #expect(refusal.code == "stateUnavailable")
        #expect(refusal.message.contains(rig.stateDirectory + "/settings.json"))
        #expect(refusal.message.contains("ENOSPC"))
        let status = try control.result(Request(.status))
        #expect(status.status?.silentSwitch == .ring)

        // An activation that could silence others: refused before it changes anything.
        let app = try rig.control()
        _ = try app.result(Self.request(.hello(app: "player")))
        let activation = try app.call(Request(.activate))
        print("full disk: activate: \(activation.error.map { "\($0.code): \($0.message)" } ?? "ok")")
        #expect(activation.error?.code == "stateUnavailable")
        #expect(activation.error?.message.contains("ENOSPC") == true)

        // Space comes back: the same requests are taken, and the switch is kept.
        try disk.free()
        _ = try control.result(Self.request(.setSilentSwitch(.silent)))
        _ = try app.result(Request(.activate))
        let settings = try String(contentsOfFile: rig.stateDirectory + "/settings.json", encoding: .utf8)
        #expect(settings.contains("\"silentSwitch\":\"silent\""))
    }

    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aStreamWhoseJournalCannotBeWrittenIsNotMutedAndNothingIsLeftMutedAfterKill9(
        _ kind: PrivateSoundServer.Kind
    ) async throws {
        let rig = try await CrashRig(kind)
        defer { rig.stop() }
        let disk = try SmallDisk(at: rig.stateDirectory)
        defer { disk.unmount() }
        try await rig.startDaemon()
        let firstLog = Self.logOfLatestDaemon(rig)
        // Filled before anything has the daemon write its journal: a write under way while the disk fills would
        // free the old file's blocks when it is renamed over it, and leave the journal room to go on.
        let bytes = try disk.fill()
        print("full disk: the state tmpfs filled with \(bytes) bytes")
        let player = try rig.play(app: "radio", role: "music")
        defer { player.terminate() }
        let music = try await rig.stream(app: "radio")
        // The user's volume, set as a user would (and not the first one seen: PipeWire may still settle it).
        let user = PulseVolume(channels: [45875, 45875])
        try await rig.observer.setSinkInputVolume(music.index, user)
        try await eventually("the music has its user's volume") {
            try await rig.observer.sinkInput(music.index)?.volume == user
        }
        _ = try disk.fill()

        // A navigation prompt: the music is not ducked, since its user's values could not be journaled first.
        let prompt = try rig.play(app: "maps", role: "navigation")
        defer { prompt.terminate() }
        _ = try await rig.stream(app: "maps")
        try await eventually("the daemon reports the journal it cannot write") {
            firstLog().split(separator: "\n").contains { $0.contains("streams.json") && $0.contains("not written") }
        }
        let duck = try await Self.changeOf(music.index, from: user, rig)
        #expect(duck == nil, "the music was ducked by a prompt whose duck could not be journaled")
        if duck != nil { print("full disk (\(kind)): the daemon's log:\n\(firstLog())") }
        prompt.terminate()
        _ = prompt.waitForExit()
        try await eventually("the prompt's stream is gone") { try await rig.observer.sinkInputs().count == 1 }

        // An unaware call: the music is not silenced either.
        let call = try rig.play(app: "call", role: "phone")
        defer { call.terminate() }
        _ = try await rig.stream(app: "call")
        #expect(
            try await Self.changeOf(music.index, from: user, rig) == nil,
            "the music was silenced during a call whose silence could not be journaled"
        )

        // kill -9, and a new daemon on the still full disk: nothing is silenced, before or after it starts.
        rig.killDaemon()
        let afterKill = try #require(try await rig.observer.sinkInput(music.index))
        #expect(afterKill.volume == user && !afterKill.muted, "\(afterKill.volume), muted \(afterKill.muted)")
        try await rig.startDaemon()
        #expect(
            try await Self.changeOf(music.index, from: user, rig) == nil,
            "the music was silenced after kill -9 and a restart on the full disk"
        )

        // The log: the failure once, not once per turn.
        let failures = firstLog().split(separator: "\n").filter {
            $0.contains("streams.json") && $0.contains("not written")
        }
        print("full disk: the first daemon logged \(failures.count) journal failure lines: \(failures.first ?? "")")
        #expect(failures.count == 1)
        #expect(failures.first?.contains("No space left on device (ENOSPC, errno 28)") == true)
        let eventLogFailures = firstLog().split(separator: "\n").filter {
            $0.contains("events.jsonl") && $0.contains("not written")
        }
        #expect(eventLogFailures.count <= 1, "the event log's failures flood the log: \(eventLogFailures.count) lines")

        // Space comes back: the journal is written again (and the log says so), and the call's verdict, which
        // waited for it, is carried out now that a crash could be undone.
        try disk.free()
        let secondLog = Self.logOfLatestDaemon(rig)
        try await eventually("the daemon says the journal is written again") {
            secondLog().contains("stream journal \(rig.stateDirectory)/streams.json written again")
        }
        try await eventually("the music is silenced for the call once it is journaled") {
            try await rig.observer.sinkInput(music.index)?.isSilenced == true
        }
        #expect(try rig.journal(in: rig.stateDirectory).entries.contains { $0.index == music.index && Self.silences($0) })

        // kill -9 with space: the journal gives the music back when the call is over and a daemon starts.
        rig.killDaemon()
        call.terminate()
        _ = call.waitForExit()
        try await rig.startDaemon()
        try await eventually("the music is heard again at its user's volume after the restart") {
            let now = try await rig.observer.sinkInput(music.index)
            return now?.volume == user && now?.muted == false
        }
        print(
            "full disk: \(secondLog().split(separator: "\n").first { $0.contains("written again") }?.split(separator: "]").last ?? "")"
        )
    }

    /// A call ends on a full disk while a prompt plays: the music comes back from the call's silence at once, to
    /// the duck of the volume its user set during the call. Nothing of that verdict waits: the silence's journal
    /// entry (the user's volume, and 0 for the policy's) already spans the duck, so a crash could undo it; and
    /// the narrower entry is written too, in place, in blocks the journal's files already hold. (Before gain layers the call's hold was a mute, and the duck waited
    /// for the journal while the unmute was made; a verdict that gives back and holds back at once is now a
    /// move with a louder volume: `StreamMachineTests`, "a full disk: ...".)
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aCallsEndOnAFullDiskGivesTheMusicBackAtOnceToThePromptsDuckOfTheUsersVolume(
        _ kind: PrivateSoundServer.Kind
    ) async throws {
        let rig = try await CrashRig(kind)
        defer { rig.stop() }
        let disk = try SmallDisk(at: rig.stateDirectory)
        defer { disk.unmount() }
        try await rig.startDaemon()
        let log = Self.logOfLatestDaemon(rig)
        let player = try rig.play(app: "radio", role: "music")
        defer { player.terminate() }
        let music = try await rig.stream(app: "radio")
        let user = PulseVolume(channels: [45875, 45875])
        try await rig.observer.setSinkInputVolume(music.index, user)
        try await eventually("the music has its user's volume") {
            try await rig.observer.sinkInput(music.index)?.volume == user
        }
        // A prompt ducks the music, and a call silences it and interrupts the prompt (journaled: the disk has
        // room).
        let prompt = try rig.play(app: "maps", role: "navigation")
        defer { prompt.terminate() }
        _ = try await rig.stream(app: "maps")
        try await eventually("the music is ducked under the prompt") {
            try await rig.observer.sinkInput(music.index)?.volume != user
        }
        let call = try rig.play(app: "call", role: "phone")
        defer { call.terminate() }
        _ = try await rig.stream(app: "call")
        try await eventually("the music is silenced for the call") {
            try await rig.observer.sinkInput(music.index)?.volume == user.silenced
        }
        // The user turns the music down during the call: that is its user's volume now (journaled, then put back
        // to 0 at once: the call's hold wins), which the prompt is to duck when the call is over.
        let userDuringCall = PulseVolume(channels: [39321, 39321])
        try await rig.observer.setSinkInputVolume(music.index, userDuringCall)
        try await eventually("the call's hold puts the user's new volume back to 0") {
            try await rig.observer.sinkInput(music.index)?.volume == user.silenced
        }
        try await eventually("the journal holds the user's new volume") {
            try rig.journal(in: rig.stateDirectory).entries.contains {
                $0.index == music.index && $0.userVolume == userDuringCall.channels && Self.silences($0)
            }
        }

        // The disk fills and the call ends: the music is heard again, ducked from its user's new volume.
        _ = try disk.fill()
        call.terminate()
        _ = call.waitForExit()
        let ducked = userDuringCall.scaled(by: 0.25)
        try await eventually("the music is ducked from the user's new volume when the call ends, on the full disk") {
            let now = try await rig.observer.sinkInput(music.index)
            return now?.volume == ducked && now?.muted == false
        }
        try await eventually("the narrower journal entry is written, on the full disk") {
            try rig.journal(in: rig.stateDirectory).entries.contains {
                $0.index == music.index && $0.userVolume == userDuringCall.channels
                    && $0.policyVolume == ducked.channels
            }
        }
        let journalFailures = log().split(separator: "\n").filter {
            $0.contains("streams") && $0.contains("not written")
        }
        #expect(journalFailures.isEmpty, "a journal write failed: \(journalFailures)")

        // Room again, and the prompt ends: the user's volume of the call.
        try disk.free()
        prompt.terminate()
        try await eventually("the music plays at the volume its user set during the call") {
            let now = try await rig.observer.sinkInput(music.index)
            return now?.volume == userDuringCall && now?.muted == false
        }
    }

    /// A stream the server moves by itself (its device went away) while the disk is full is not held silent (that
    /// could not be undone after a crash), and nor is the stop the policy decides for it (R4); once the journal can
    /// be written the stop is made. (The hold that could not be made was taken for made, and the stop then
    /// wrote nothing.)
    @Test(arguments: PrivateSoundServer.Kind.allCases)
    func aStreamTheServerMovesWhileTheDiskIsFullIsStoppedOnceItsJournalCanBeWritten(
        _ kind: PrivateSoundServer.Kind
    ) async throws {
        let rig = try await CrashRig(kind)
        defer { rig.stop() }
        let disk = try SmallDisk(at: rig.stateDirectory)
        defer { disk.unmount() }
        try await rig.startDaemon()
        let log = Self.logOfLatestDaemon(rig)
        let player = try rig.play(app: "radio", role: "music")
        defer { player.terminate() }
        let music = try await rig.stream(app: "radio")
        let sinks = try await rig.observer.sinks()
        let headphones = try #require(sinks.first { $0.name == "headphones" }?.index)
        let speaker = try #require(sinks.first { $0.name == "speaker" }?.index)
        try await eventually("the music plays on the headphones") {
            try await rig.observer.sinkInput(music.index)?.sinkIndex == headphones
        }
        // The journal is written in place, into the older of its two files: on a full disk only a write that needs
        // a block its file does not hold yet fails. Whether the move's second write (its entry's `movedTo`) came
        // before the disk filled was a race with the observer's view of the move: in about 1 run in 60 under load
        // it came first, the stop's write then fitted in the older file's block, and nothing failed. So the move's
        // entry is waited for, and the older file's block taken away: the next write needs one.
        try await eventually("the journal holds the music's move to the headphones") {
            try rig.journal(in: rig.stateDirectory).entries.contains {
                $0.index == music.index && $0.movedTo == headphones
            }
        }
        try Self.emptyOlderJournalFile(rig)

        _ = try disk.fill()
        let module = try #require(
            try rig.server.pactl(["list", "short", "modules"]).split(separator: "\n")
                .first { $0.contains("sink_name=headphones") }?.split(separator: "\t").first.flatMap { UInt32($0) }
        )
        try rig.server.unloadModule(module)
        try await eventually("the server moved the music to the speaker") {
            try await rig.observer.sinkInput(music.index)?.sinkIndex == speaker
        }
        try await eventually("the daemon reports the journal it cannot write") {
            log().split(separator: "\n").contains { $0.contains("streams.json") && $0.contains("not written") }
        }
        try await eventually("the daemon has decided the music's stop (R4)") {
            try rig.control().status().streams.contains {
                $0.origin == "pulse sink-input \(music.index)" && $0.verdict == "silent"
            }
        }
        #expect(try await rig.observer.sinkInput(music.index)?.isSilenced == false, "silenced with nothing journaled")

        try disk.free()
        try await eventually("the music is stopped (R4) once its journal can be written") {
            try await rig.observer.sinkInput(music.index)?.isSilenced == true
        }
        #expect(try rig.journal(in: rig.stateDirectory).entries.contains { $0.index == music.index && Self.silences($0) })
    }

    static func request(_ command: Command) -> Request { Request(command) }

    /// Empties the one of the journal's two files that the daemon writes next (the one without the newest whole
    /// journal), freeing its blocks.
    static func emptyOlderJournalFile(_ rig: CrashRig) throws {
        let newest = try #require(rig.newestJournal(in: rig.stateDirectory), "no whole journal to keep")
        let older = JournalSlots.paths(for: rig.stateDirectory + "/" + JournalStreams.fileName)[1 - newest.slot]
        guard FileManager.default.fileExists(atPath: older) else { return }
        guard truncate(older, 0) == 0 else { throw LiveTestError("cannot empty \(older): errno \(errno)") }
    }

    /// Whether a journal entry is of the policy's silence: a volume of 0 (the gain layer's), the flag left alone.
    static func silences(_ entry: JournalStreamEntry) -> Bool {
        !entry.policyMuted && !entry.policyVolume.isEmpty && entry.policyVolume.allSatisfy { $0 == 0 }
    }

    /// What the daemon started last logs, read afresh on each call, also after another daemon started.
    static func logOfLatestDaemon(_ rig: CrashRig) -> @Sendable () -> String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: rig.server.directory)) ?? []
        let latest = files.filter { $0.hasSuffix("-audiosessiond.log") }.max {
            Int($0.split(separator: "-")[1]) ?? 0 < Int($1.split(separator: "-")[1]) ?? 0
        }
        let path = rig.server.directory + "/" + (latest ?? "none")
        return { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    }

    /// What happens to the music within 2 s, if anything does to its user's volume and mute (what the policy
    /// does, it does within milliseconds): nil when nothing.
    static func changeOf(_ index: UInt32, from user: PulseVolume, _ rig: CrashRig) async throws -> String? {
        let until = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < until {
            guard let now = try await rig.observer.sinkInput(index) else { return "the music's stream is gone" }
            if now.muted || now.volume != user { return "muted: \(now.muted), volume \(now.volume.channels) (0: silenced)" }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// A tmpfs of 256 KiB mounted over a directory (the tests run as root), filled up and freed on demand.
final class SmallDisk: @unchecked Sendable {
    let path: String
    private var mounted = false

    init(at path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // With a time limit: a mount that hangs fails the test naming it, rather than holding its thread.
        let mount = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/mount"),
            ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", path],
            environment: ChildProcess.environment([:]),
            timeout: .seconds(30)
        )
        guard mount.status == 0 else {
            throw LiveTestError(
                "mount -t tmpfs on \(path) failed (status \(mount.status): \(mount.standardError)): the test needs root"
            )
        }
        mounted = true
    }

    /// Writes on at the end of `filler` until the file system says ENOSPC (again, when space was freed since);
    /// the bytes written.
    func fill() throws -> Int {
        let descriptor = open(path + "/filler", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw LiveTestError("cannot create \(path)/filler") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x2a, count: 1024)
        var total = 0
        while true {
            let count = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                guard errno == ENOSPC else { throw LiveTestError("filling \(path): errno \(errno), not ENOSPC") }
                return total
            }
            total += count
        }
    }

    func free() throws { try FileManager.default.removeItem(atPath: path + "/filler") }

    func unmount() {
        guard mounted else { return }
        _ = try? ChildProcess.run(
            URL(fileURLWithPath: "/bin/umount"), ["-l", path], environment: ChildProcess.environment([:]),
            timeout: .seconds(30)
        )
        mounted = false
    }
}
