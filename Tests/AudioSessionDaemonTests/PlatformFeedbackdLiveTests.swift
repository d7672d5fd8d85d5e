import AudioSessionDaemon
import AudioSessionProtocol
import AudioSessionTestSupport
import DBusBackend
import Foundation
import Locking
import Testing

@testable import AudioSessionCLI

/// The Ring/Silent switch from the real feedbackd on a private bus, heard on a private PulseAudio.
@Suite("The switch from the real feedbackd", .timeLimit(.minutes(3)))
struct PlatformFeedbackdLiveTests {
    @Test func theSwitchFollowsFeedbackdsProfileAndSetsIt() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--session-bus", bus.address, "--system-bus", "none"])
        defer { live.stop() }
        let feedbackd = try await RealFeedbackd.start(on: bus, server: live.server)
        defer { feedbackd.stop() }
        let control = try DBusConnection(.address(bus.address))
        defer { control.close() }
        let profiles = ProfileRecorder(
            try await control.propertiesChanges(
                sender: FeedbackdNames.name,
                path: FeedbackdNames.path,
                interface: FeedbackdNames.interface
            )
        )
        let game = try live.play(role: "game")
        defer { game.stop() }
        let stream = try await live.stream(role: "game")
        try await eventually("the game is heard on ring") { try await live.current(stream.index)?.isSilenced == false }

        // The profile set as docs/DBUS.md shows it: the switch follows, and an unaware game is silenced.
        try busctl(
            bus,
            [
                "set-property", FeedbackdNames.name, FeedbackdNames.path, FeedbackdNames.interface, "Profile", "s",
                "silent",
            ]
        )
        try await eventually("the switch is silent") { try Self.status(live).silentSwitch == .silent }
        try await eventually("the game is silenced") { try await live.current(stream.index)?.isSilenced == true }
        try await control.setProperty(
            destination: FeedbackdNames.name,
            path: FeedbackdNames.path,
            interface: FeedbackdNames.interface,
            name: "Profile",
            value: .string("full")
        )
        try await eventually("the switch is ring") { try Self.status(live).silentSwitch == .ring }
        try await eventually("the game is heard again at its volume") {
            let now = try await live.current(stream.index)
            return now?.volume == stream.volume && now?.muted == false
        }

        // The switch set with the tool sets feedbackd's profile.
        try await profiles.waitFor("full")
        let beforeSilent = profiles.count
        #expect(try await Self.ctl(live, ["switch", "silent"]).status == 0)
        try await profiles.waitFor("silent", after: beforeSilent)
        #expect(try await Self.profile(control) == "silent")
        let beforeRing = profiles.count
        #expect(try await Self.ctl(live, ["switch", "ring"]).status == 0)
        try await profiles.waitFor("full", after: beforeRing)

        // A user's `quiet` is silent already: the tool's `switch silent` keeps it; `switch ring` sets full, and
        // nothing in between (the daemon's own changes coming back are not followed: no echo).
        let beforeQuiet = profiles.count
        try busctl(
            bus,
            [
                "set-property", FeedbackdNames.name, FeedbackdNames.path, FeedbackdNames.interface, "Profile", "s",
                "quiet",
            ]
        )
        try await profiles.waitFor("quiet", after: beforeQuiet)
        try await eventually("quiet makes the switch silent") { try Self.status(live).silentSwitch == .silent }
        let afterQuiet = profiles.count
        #expect(try await Self.ctl(live, ["switch", "silent"]).status == 0)
        #expect(try await Self.ctl(live, ["switch", "ring"]).status == 0)
        try await profiles.waitFor("full", after: afterQuiet)
        #expect(Array(profiles.all.dropFirst(afterQuiet)) == ["full"])
        #expect(try Self.status(live).silentSwitch == .ring)
    }

    @Test func feedbackdRestartingOrAppearingLaterIsFollowed() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let live = try await LiveDaemon(.pulseaudio, arguments: ["--session-bus", bus.address, "--system-bus", "none"])
        defer { live.stop() }
        // No feedbackd yet: the switch is the socket's alone, as without a bus.
        #expect(try await Self.ctl(live, ["switch", "silent"]).status == 0)
        #expect(try Self.status(live).silentSwitch == .silent)
        // feedbackd appears (its profile is full): the switch follows it.
        var feedbackd = try await RealFeedbackd.start(on: bus, server: live.server)
        defer { feedbackd.stop() }
        try await eventually("the switch follows the profile of a feedbackd that came later") {
            try Self.status(live).silentSwitch == .ring
        }
        try busctl(
            bus,
            [
                "set-property", FeedbackdNames.name, FeedbackdNames.path, FeedbackdNames.interface, "Profile", "s",
                "silent",
            ]
        )
        try await eventually("the switch is silent") { try Self.status(live).silentSwitch == .silent }
        // It stops: the switch stays; it starts again (full): the switch follows.
        feedbackd.stop()
        try await eventually("the daemon saw feedbackd leave") { live.daemonLog().contains("feedbackd: left the bus") }
        #expect(try Self.status(live).silentSwitch == .silent)
        feedbackd = try await RealFeedbackd.start(on: bus, server: live.server)
        try await eventually("the switch follows the restarted feedbackd") {
            try Self.status(live).silentSwitch == .ring
        }
        #expect(live.daemonLog().components(separatedBy: "from feedbackd's profile 'full'").count - 1 == 2)
    }

    static func status(_ live: LiveDaemon) throws -> StatusBody { try live.client().status() }

    static func ctl(_ live: LiveDaemon, _ arguments: [String]) async throws -> CtlResult {
        let socket = live.socket
        return try await onThread {
            var output = ""
            var errors = ""
            let status = AudioSessionCtl.execute(arguments + ["--socket", socket], output: &output, errors: &errors)
            return CtlResult(status: status, output: output, errors: errors)
        }
    }

    static func profile(_ control: DBusConnection) async throws -> String? {
        try await control.property(
            destination: FeedbackdNames.name,
            path: FeedbackdNames.path,
            interface: FeedbackdNames.interface,
            name: "Profile"
        ).string
    }

    func busctl(_ bus: PrivateSessionBus, _ arguments: [String]) throws {
        let busctl = try #require(ChildProcess.executable(named: "busctl"), "busctl is not installed (systemd)")
        let result = try ChildProcess.run(
            busctl,
            ["--address=\(bus.address)"] + arguments,
            environment: ChildProcess.environment([:]),
            timeout: .seconds(30)
        )
        #expect(result.status == 0, "busctl \(arguments): \(result.standardError)")
    }
}

/// feedbackd's `Profile` values in the order its PropertiesChanged signals said them.
final class ProfileRecorder: Sendable {
    private final class Profiles: Sendable {
        let list = Locked<[String]>([])
    }

    private let profiles = Profiles()
    private let task: Task<Void, Never>

    init(_ changes: AsyncStream<DBusPropertiesChange>) {
        task = Task { [profiles] in
            for await change in changes {
                if let profile = change.changed["Profile"]?.string { profiles.list.withLock { $0.append(profile) } }
            }
        }
    }

    deinit { task.cancel() }

    var all: [String] { profiles.list.withLock { $0 } }
    var count: Int { all.count }

    /// Waits until feedbackd has said `profile` (at index `after` or later).
    func waitFor(_ profile: String, after: Int = 0) async throws {
        try await eventually("feedbackd's profile becomes '\(profile)'", within: 20) { [self] in
            all.dropFirst(after).contains(profile)
        }
    }
}
