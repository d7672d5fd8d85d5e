import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Testing

@testable import AudioSessionDaemon

/// The `decisions` request (the D-Bus face's `RecentDecisions`) on the pure core: the last decisions, each
/// with its number, bounded, and a count it cannot give refused with why.
@Suite struct FaceDecisionsTests {
    /// The reply to `decisions` with `count` from a control client.
    private func decisions(_ core: inout DaemonCore, count: Int?) -> Reply? {
        let request = Request(id: .number(1), .decisions(count: count))
        let control = ClientID(rawValue: 999)
        for case .send(control, .reply(let reply)) in core.handle(.request(control, request)) { return reply }
        return nil
    }

    @Test func theLastDecisionsAreKeptNumberedAndBounded() throws {
        var core = DaemonCore(engine: PolicyEngine(config: .standard, outputs: [.speaker], inputs: []), controlUserID: 1000)
        _ = core.handle(.clientConnected(ClientID(rawValue: 999), ClientPeer(processID: 1, userID: 1000, processName: "ctl")))
        // Each app's session is one logged decision.
        let apps = RecentDecisions.capacity + 50
        for number in 1...apps {
            let client = ClientID(rawValue: number)
            _ = core.handle(.clientConnected(client, ClientPeer(processID: Int32(number), userID: 1000, processName: "app")))
            let hello = Request(.hello(app: "app\(number)"))
            _ = core.handle(.request(client, hello))
        }
        let three = try #require(decisions(&core, count: 3)?.result?.decisions)
        #expect(three.map(\.number) == [apps - 2, apps - 1, apps])
        #expect(three.last?.text.hasPrefix("app\(apps): session \(apps) for client#\(apps)") == true, "\(three)")
        let all = try #require(decisions(&core, count: 10_000)?.result?.decisions)
        #expect(all.count == RecentDecisions.capacity)
        #expect(all.map(\.number) == Array((apps - RecentDecisions.capacity + 1)...apps))
        #expect(try #require(decisions(&core, count: nil)?.result?.decisions).count == 20)
        let none = try #require(decisions(&core, count: 0))
        #expect(!none.ok)
        #expect(none.error?.code == "badField" && none.error?.field == "count")
        #expect(none.error?.message.contains("expected a whole number from 1") == true)
        // A stranger is refused, as for every control request.
        let stranger = ClientID(rawValue: 5000)
        _ = core.handle(.clientConnected(stranger, ClientPeer(processID: 2, userID: 4242, processName: "x")))
        let refused = core.handle(.request(stranger, Request(id: .number(2), .decisions())))
        #expect(refused.contains { if case .send(stranger, .reply(let reply)) = $0 { reply.error?.code == "notPermitted" } else { false } })
    }
}
