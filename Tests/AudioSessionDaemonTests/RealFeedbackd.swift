import AudioSessionTestSupport
import DBusBackend
import Foundation

/// The real feedbackd (Debian package feedbackd) on a private bus, with GSettings in memory so that it neither
/// reads nor writes the user's dconf (its profile starts as `full`). Its log is kept in the sound server's folder.
final class RealFeedbackd: Sendable {
    let process: Process

    private init(process: Process) {
        self.process = process
    }

    /// The daemon's binary, from the package's file list (`dpkg -L feedbackd`).
    static func executable() throws -> String {
        let dpkg = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/dpkg"),
            ["-L", "feedbackd"],
            environment: ChildProcess.environment([:]),
            timeout: .seconds(30)
        )
        guard
            let path = dpkg.standardOutput.split(separator: "\n").map(String.init).first(where: {
                $0.hasSuffix("/feedbackd") && FileManager.default.isExecutableFile(atPath: $0)
            })
        else { throw LiveTestError("feedbackd is not installed (Debian: feedbackd)") }
        return path
    }

    /// Starts feedbackd and returns once it owns its name on `bus`.
    static func start(on bus: PrivateSessionBus, server: PrivateSoundServer) async throws -> RealFeedbackd {
        let watcher = try DBusConnection(.address(bus.address))
        defer { watcher.close() }
        let owners = try await watcher.nameOwnerChanges(for: FeedbackdNames.name)
        let process = try server.spawn(
            try executable(),
            [],
            environment: bus.environment.merging(["GSETTINGS_BACKEND": "memory"]) { _, new in new }
        )
        let feedbackd = RealFeedbackd(process: process)
        do {
            try await withTimeout(20, "feedbackd to own \(FeedbackdNames.name)") {
                for await change in owners where change.newOwner != nil { return }
                throw LiveTestError("the bus went away before feedbackd came")
            }
        } catch {
            feedbackd.stop()
            throw error
        }
        return feedbackd
    }

    func stop() { process.stop() }
}

enum FeedbackdNames {
    static let name = "org.sigxcpu.Feedback"
    static let path = "/org/sigxcpu/Feedback"
    static let interface = "org.sigxcpu.Feedback"
}

