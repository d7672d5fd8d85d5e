import AudioSessionConfiguration
import AudioSessionDaemonCore
import DBusBackend
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The screen lock from logind (the session's `LockedHint`, its `Lock` and `Unlock` signals, on the system bus)
/// or from the screensaver (`org.freedesktop.ScreenSaver`'s `GetActive` and `ActiveChanged`, on the session bus).
struct LockFollower: Sendable {
    static let logind = "org.freedesktop.login1"
    static let logindPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"
    static let screensaver = "org.freedesktop.ScreenSaver"
    static let screensaverPath = "/org/freedesktop/ScreenSaver"
    static let timeout = Duration.seconds(5)

    let source: PlatformSettings.LockSource
    let buses: PlatformBuses
    let sessionBus: DBusConnection?
    /// Closed by the service at shutdown, as the session bus is.
    let systemBus: DBusConnection?
    let report: @Sendable (PlatformFact) -> Void
    let trouble: TroubleLog
    let logger: Logger

    /// Follows the lock until the task is cancelled or the bus goes away.
    func run() async {
        switch source {
        case .off: return
        case .logind: _ = await followLogind(quietly: false)
        case .screensaver: await followScreensaver()
        case .auto: if await !followLogind(quietly: true) { await followScreensaver() }
        }
    }

    /// False when logind or the session cannot be found (said as a warning unless `quietly`: `auto` then tries
    /// the screensaver).
    private func followLogind(quietly: Bool) async -> Bool {
        func unavailable(_ why: String) -> Bool {
            let line = "lock: logind is not followed: \(why)"
            if quietly { logger.info("\(line)") } else { trouble.once("logind", line) }
            return false
        }
        guard let bus = systemBus else { return unavailable("no system bus") }
        let path: String
        do {
            let reply =
                if let id = buses.logindSession {
                    try await bus.call(
                        destination: Self.logind,
                        path: Self.logindPath,
                        interface: Self.manager,
                        member: "GetSession",
                        arguments: [.string(id)],
                        timeout: Self.timeout,
                        replySignature: "o"
                    )
                } else {
                    try await bus.call(
                        destination: Self.logind,
                        path: Self.logindPath,
                        interface: Self.manager,
                        member: "GetSessionByPID",
                        arguments: [.uint32(UInt32(getpid()))],
                        timeout: Self.timeout,
                        replySignature: "o"
                    )
                }
            guard let found = reply.first?.string else { return unavailable("no session path in logind's answer") }
            path = found
        } catch .closed {
            return true
        } catch {
            return unavailable("no session \(buses.logindSession.map { "'\($0)'" } ?? "of this process"): \(error)")
        }
        do {
            let changes = try await bus.propertiesChanges(sender: Self.logind, path: path, interface: Self.session)
            let signals = try await bus.signals(
                matching: DBusConnection.matchRule([
                    "type": "signal", "sender": Self.logind, "path": path, "interface": Self.session,
                ])
            )
            logger.notice("lock: following logind's session at \(path)")
            let report = report
            await readLockedHint(bus, path)
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await change in changes {
                        if let value = change.changed["LockedHint"] { take(value, from: "logind's LockedHint") }
                        if change.invalidated.contains("LockedHint") { await readLockedHint(bus, path) }
                    }
                }
                group.addTask {
                    for await signal in signals {
                        switch signal.member {
                        case "Lock": report(.screenLock(locked: true, source: "logind's Lock signal"))
                        case "Unlock": report(.screenLock(locked: false, source: "logind's Unlock signal"))
                        default: break
                        }
                    }
                }
            }
        } catch {
            trouble.once("logind watch", "lock: cannot watch logind's session at \(path): \(error)", error: error)
        }
        return true
    }

    private func readLockedHint(_ bus: DBusConnection, _ path: String) async {
        do {
            let value = try await bus.property(
                destination: Self.logind,
                path: path,
                interface: Self.session,
                name: "LockedHint",
                timeout: Self.timeout
            )
            take(value, from: "logind's LockedHint")
        } catch {
            trouble.once("logind read \(error)", "lock: cannot read logind's LockedHint: \(error)", error: error)
        }
    }

    private func followScreensaver() async {
        guard let bus = sessionBus else {
            if source == .screensaver {
                trouble.once("screensaver", "lock: the screensaver is not followed: no session bus")
            }
            return
        }
        do {
            let owners = try await bus.nameOwnerChanges(for: Self.screensaver)
            let signals = try await bus.signals(
                matching: DBusConnection.matchRule([
                    "type": "signal", "sender": Self.screensaver, "interface": Self.screensaver,
                    "member": "ActiveChanged",
                ])
            )
            logger.notice("lock: following the screensaver (\(Self.screensaver)) on the session bus")
            if try await bus.nameOwner(Self.screensaver) != nil { await readActive(bus) }
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await change in owners where change.newOwner != nil { await readActive(bus) }
                }
                group.addTask {
                    for await signal in signals {
                        guard let value = signal.arguments.first, signal.arguments.count == 1 else {
                            trouble.once(
                                "screensaver signal \(signal.signature)",
                                "lock: the screensaver's ActiveChanged carries '\(signal.signature)', not a boolean; ignored"
                            )
                            continue
                        }
                        take(value, from: "the screensaver's ActiveChanged")
                    }
                }
            }
        } catch {
            trouble.once("screensaver watch", "lock: cannot watch the screensaver: \(error)", error: error)
        }
    }

    private func readActive(_ bus: DBusConnection) async {
        do {
            let reply = try await bus.call(
                destination: Self.screensaver,
                path: Self.screensaverPath,
                interface: Self.screensaver,
                member: "GetActive",
                timeout: Self.timeout
            )
            guard let value = reply.first, reply.count == 1 else {
                return trouble.once(
                    "screensaver reply",
                    "lock: the screensaver's GetActive answered no boolean; ignored"
                )
            }
            take(value, from: "the screensaver")
        } catch .noSuchName {
        } catch {
            trouble.once("screensaver read \(error)", "lock: cannot ask the screensaver: \(error)", error: error)
        }
    }

    private func take(_ value: DBusValue, from source: String) {
        guard case .bool(let locked) = value else {
            return trouble.once(
                "lock type \(source) \(value.signature)",
                "lock: \(source) is \(value) (type \(value.signature)), not a boolean; ignored"
            )
        }
        report(.screenLock(locked: locked, source: source))
    }
}
