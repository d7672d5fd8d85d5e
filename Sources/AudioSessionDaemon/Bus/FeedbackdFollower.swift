import AudioSessionDaemonCore
import DBusBackend

/// The Ring/Silent switch from feedbackd: its `Profile` when it is on the session bus, read again when it
/// appears or restarts, and followed through `PropertiesChanged`; and its `Profile` set when the core asks.
struct FeedbackdFollower: Sendable {
    static let name = "org.sigxcpu.Feedback"
    static let path = "/org/sigxcpu/Feedback"
    static let interface = "org.sigxcpu.Feedback"
    /// A feedbackd that does not answer within this is reported (once), not waited for.
    static let timeout = Duration.seconds(5)

    let bus: DBusConnection
    let report: @Sendable (PlatformFact) -> Void
    let trouble: TroubleLog

    /// Follows feedbackd until the task is cancelled or the bus goes away.
    func run() async {
        do {
            // Subscribed before the first read, so that a change between the two is not missed.
            let owners = try await bus.nameOwnerChanges(for: Self.name)
            let changes = try await bus.propertiesChanges(sender: Self.name, path: Self.path, interface: Self.interface)
            if try await bus.nameOwner(Self.name) != nil { await readProfile() }
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await change in owners {
                        if change.newOwner != nil { await readProfile() } else { report(.feedbackdGone) }
                    }
                }
                group.addTask {
                    for await change in changes {
                        if let value = change.changed["Profile"] { take(value) }
                        if change.invalidated.contains("Profile") { await readProfile() }
                    }
                }
            }
        } catch {
            trouble.once("feedbackd watch", "feedbackd: cannot watch it on the session bus: \(error)", error: error)
        }
    }

    private func readProfile() async {
        do {
            let value = try await bus.property(
                destination: Self.name,
                path: Self.path,
                interface: Self.interface,
                name: "Profile",
                timeout: Self.timeout
            )
            take(value)
        } catch .noSuchName {
            // Gone again before it answered: its NameOwnerChanged says so.
        } catch {
            trouble.once(
                "feedbackd read \(error)",
                "feedbackd: cannot read its Profile: \(error); the switch stays as it is",
                error: error
            )
        }
    }

    private func take(_ value: DBusValue) {
        guard case .string(let profile) = value else {
            return trouble.once(
                "feedbackd type \(value.signature)",
                "feedbackd: its Profile is \(value) (type \(value.signature)), not a string; ignored"
            )
        }
        report(.feedbackdProfile(profile))
    }

    /// Sets feedbackd's profile; trouble is logged once, the switch stays as the user set it.
    func setProfile(_ profile: String) async {
        do {
            try await bus.setProperty(
                destination: Self.name,
                path: Self.path,
                interface: Self.interface,
                name: "Profile",
                value: .string(profile),
                timeout: Self.timeout
            )
        } catch {
            trouble.once(
                "feedbackd write \(error)",
                "feedbackd: cannot set its Profile to '\(profile)': \(error)",
                error: error
            )
        }
    }
}
