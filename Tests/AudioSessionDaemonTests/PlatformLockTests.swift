import AudioSessionConfiguration
import AudioSessionDaemon
import AudioSessionTestSupport
import DBusBackend
import Foundation
import Testing

/// The lock from logind, against a STAND-IN logind on a private bus (real logind cannot run here), and the
/// daemon without a session bus.
@Suite("The lock from a stand-in logind", .timeLimit(.minutes(4)))
struct PlatformLockTests {
    @Test func theLockFollowsLockedHintAndTheLockAndUnlockSignals() async throws {
        let bus = try await PrivateSessionBus.start(type: "system")
        defer { bus.stop() }
        let logind = try await StandInLogind(address: bus.address)
        defer { logind.close() }
        try await logind.setLocked(true)
        let buses = PlatformBuses(system: bus.address, logindSession: StandInLogind.sessionID)
        try await PlatformDaemon.with(buses: buses, platform: PlatformSettings(lock: .logind)) { daemon in
            try await daemon.waitForStatus("the lock read from LockedHint at the start") { $0.screenLocked }
            // Unlock only as a signal, then lock only as a property change: each alone moves the lock.
            try await logind.setLocked(false, signal: true, propertiesChanged: false)
            try await daemon.waitForStatus("unlocked by the Unlock signal") { !$0.screenLocked }
            try await logind.setLocked(true, signal: false, propertiesChanged: true)
            try await daemon.waitForStatus("locked by LockedHint's PropertiesChanged") { $0.screenLocked }
            #expect(logind.calls.withLock { $0 }.contains("GetSession"))
            #expect(daemon.log.count(containing: "following logind's session at \(StandInLogind.sessionPath)") == 1)
        }
    }

    @Test func autoFollowsLogindWithoutASessionBusAndFindsTheSessionByPID() async throws {
        let bus = try await PrivateSessionBus.start(type: "system")
        defer { bus.stop() }
        let logind = try await StandInLogind(address: bus.address)
        defer { logind.close() }
        try await PlatformDaemon.with(buses: PlatformBuses(system: bus.address)) { daemon in
            try await daemon.waitForStatus("the daemon follows the stand-in") { _ in
                logind.calls.withLock { $0 }.contains("Get")
            }
            try await logind.setLocked(true)
            try await daemon.waitForStatus("locked") { $0.screenLocked }
            #expect(logind.calls.withLock { $0 }.contains("GetSessionByPID"))
        }
    }

    @Test func aStandInThatAnswersErrorsIsLoggedOnceAndTheDaemonRuns() async throws {
        let bus = try await PrivateSessionBus.start(type: "system")
        defer { bus.stop() }
        let logind = try await StandInLogind(address: bus.address, behaviour: .errors)
        defer { logind.close() }
        let buses = PlatformBuses(system: bus.address, logindSession: StandInLogind.sessionID)
        try await PlatformDaemon.with(buses: buses, platform: PlatformSettings(lock: .logind)) { daemon in
            try await eventually("the refusal is logged", within: 20) {
                daemon.log.count(containing: "lock: logind is not followed") == 1
            }
            // The socket still sets the lock, and the daemon is alive to say so.
            #expect(try await daemon.ctl(["lock"]).status == 0)
            try await daemon.waitForStatus("locked through the socket") { $0.screenLocked }
            #expect(daemon.log.count(containing: "lock: logind is not followed") == 1)
            #expect(daemon.log.all.contains { $0.contains("stand-in: refusing on purpose") })
        }
    }

    @Test func aLockedHintOfTheWrongTypeIsLoggedOnceAndIgnored() async throws {
        let bus = try await PrivateSessionBus.start(type: "system")
        defer { bus.stop() }
        let logind = try await StandInLogind(address: bus.address, behaviour: .wrongType)
        defer { logind.close() }
        let buses = PlatformBuses(system: bus.address, logindSession: StandInLogind.sessionID)
        try await PlatformDaemon.with(buses: buses, platform: PlatformSettings(lock: .logind)) { daemon in
            try await eventually("the wrong type is logged", within: 20) {
                daemon.log.count(containing: "not a boolean") == 1
            }
            // Twice more as a property change of the wrong type: still one line; then a good signal still works.
            for _ in 0..<2 {
                try await logind.connection.emitPropertiesChanged(
                    path: StandInLogind.sessionPath,
                    interface: StandInLogind.sessionInterface,
                    changed: ["LockedHint": .string("yes")]
                )
            }
            try await logind.connection.emitSignal(
                path: StandInLogind.sessionPath,
                interface: StandInLogind.sessionInterface,
                member: "Lock"
            )
            try await daemon.waitForStatus("locked by the Lock signal after the bad values") { $0.screenLocked }
            #expect(daemon.log.count(containing: "not a boolean") == 1)
        }
    }

    /// `auto` on a machine without logind (no system bus): the screensaver, also when it appears later.
    @Test func autoFollowsTheScreensaverWhenThereIsNoLogind() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        try await PlatformDaemon.with(buses: PlatformBuses(session: bus.address)) { daemon in
            try await eventually("the daemon follows the screensaver", within: 20) {
                daemon.log.count(containing: "lock: following the screensaver") == 1
            }
            let screensaver = try await StandInScreenSaver(address: bus.address, active: true)
            defer { screensaver.close() }
            try await daemon.waitForStatus("locked: GetActive read when the screensaver appeared") { $0.screenLocked }
            try await screensaver.setActive(false)
            try await daemon.waitForStatus("unlocked by ActiveChanged") { !$0.screenLocked }
            try await screensaver.setActive(true)
            try await daemon.waitForStatus("locked by ActiveChanged") { $0.screenLocked }
            #expect(daemon.log.count(containing: "no session bus") == 0)
        }
    }

    @Test func withoutASessionBusTheDaemonSaysSoOnceAndRunsAsBefore() async throws {
        try await PlatformDaemon.with(buses: PlatformBuses()) { daemon in
            #expect(try await daemon.ctl(["switch", "silent"]).status == 0)
            try await daemon.waitForStatus("silent through the socket") { $0.silentSwitch == .silent }
            #expect(daemon.log.count(containing: "no session bus") == 1)
        }
    }
}
