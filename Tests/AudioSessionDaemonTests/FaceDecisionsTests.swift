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

    /// A decision on a server's event is put into words only when read (`LogLine`), from the names of when it was
    /// made: asked for after the call's session has ended and its name is gone, the music's silence still names
    /// the call that interrupted it.
    @Test func aDecisionReadLaterReadsAsWhenItWasMade() throws {
        var core = PlayerCoreTests.core()
        _ = core.handle(.clientConnected(ClientID(rawValue: 999), ClientPeer(processID: 1, userID: 1000, processName: "ctl")))
        _ = core.handle(.sound(.streamSeen(PlayerCoreTests.musicStream())))
        let call = PlayerCoreTests.callInterrupting(&core)
        let silenced = try #require(PlayerCoreTests.logs(call).first { $0.hasPrefix("\(PlayerCoreTests.music) of mpv") })
        #expect(silenced.hasSuffix(": silent on speaker: interrupted by paplay (phone) (A6)"), "\(silenced)")
        _ = PlayerCoreTests.endCall(&core)
        #expect(!core.sessionNames.values.contains("paplay (phone)"))
        let kept = try #require(decisions(&core, count: 200)?.result?.decisions).map(\.text)
        #expect(kept.contains(silenced), "\(kept)")
    }

    /// A line's words are taken from the names as they were when it was made, and lines are equal by their words.
    @Test func aLogLineKeepsTheNameItWasMadeWith() {
        var names = [SessionID(2): "paplay (phone)"]
        let reason = Reason(.A6, session: SessionID(2))
        let because = LogLine.words(for: reason, naming: { names[$0] ?? "?" })
        names[SessionID(2)] = nil
        let line = LogLine(later: { "mpv (music): \(because())" })
        let expected = "mpv (music): " + Explainer(name: { _ in "paplay (phone)" }, when: { _ in nil }).describe(reason)
        #expect(line.text == expected)
        #expect(line == LogLine(expected))
        #expect(line != "mpv (music): something else")
    }

    /// A line put together later (`LogText`, its pieces' bytes) reads as the same interpolation into a `String`
    /// would: strings, described values, lists, text beyond ASCII.
    @Test func aLineMadeLaterReadsAsTheSameInterpolationWould() {
        let origin = StreamOrigin.sinkInput(7)
        let subject = "Lecteur (musique) — ♪"
        let names = ["duckOthers", "mixWithOthers"]
        let port: Port? = nil
        let line = LogLine(later: { "\(origin) of \(subject): \(names) on \(port?.rawValue ?? "-") (U1)" })
        let expected: String = "\(origin) of \(subject): \(names) on \(port?.rawValue ?? "-") (U1)"
        #expect(line.text == expected)
        #expect(line.text == #"pulse sink-input 7 of Lecteur (musique) — ♪: ["duckOthers", "mixWithOthers"] on - (U1)"#)
        #expect(LogLine(later: { "" }).text.isEmpty)
    }
}
