import AudioSessionTestSupport
import Foundation
import Testing

/// The private bus the tests use admits only this user, unless asked to admit every user.
@Suite struct PrivateSessionBusTests {
    /// `busctl list` as user nobody (`setpriv`), on a bus started with or without `everyUser`.
    private func listAsNobody(everyUser: Bool) throws -> ChildProcess.Output {
        let bus = try PrivateSessionBus.start(everyUser: everyUser)
        defer { bus.stop() }
        let setpriv = try #require(ChildProcess.executable(named: "setpriv"), "setpriv is not installed (util-linux)")
        let busctl = try #require(ChildProcess.executable(named: "busctl"), "busctl is not installed (systemd)")
        return try ChildProcess.run(
            setpriv,
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", busctl.path, "--address=\(bus.address)", "list"],
            environment: ChildProcess.environment([:]),
            timeout: .seconds(30)
        )
    }

    @Test(.enabled(if: getuid() == 0, "setpriv needs root to become another user"))
    func anotherUserConnectsOnlyToABusForEveryUser() throws {
        let admitted = try listAsNobody(everyUser: true)
        #expect(admitted.status == 0, "\(admitted.standardError)")
        let refused = try listAsNobody(everyUser: false)
        #expect(refused.status != 0)
    }
}
