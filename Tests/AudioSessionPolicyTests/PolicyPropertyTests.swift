import AudioSessionPolicy
import AudioSessionTestSupport
import Locking
import Testing

/// Random runs with invariants checked after every step; a failure names the seed and step to replay.
@Suite struct PolicyPropertyTests {
    static let runs = 500
    static let stepsPerRun = 200

    /// 100,000 steps take about 14 s of one core: on a thread of its own, not on one of Swift concurrency's
    /// two pool threads, which the daemons other tests run in this process need (docs/TESTING.md, "The pool").
    @Test func invariantsHoldAfterEveryRandomStep() async throws {
        try await onThread { Self.checkRandomRuns() }
    }

    private static func checkRandomRuns() {
        var steps = 0
        for seed in 1...UInt64(Self.runs) {
            var checker = InvariantChecker()
            let log = Self.replay(seed: seed, steps: Self.stepsPerRun) { engine, step, event, source, actions in
                checker.check(engine, after: event, from: source, actions: actions, step: step)
            }
            steps += log.count
            if !checker.violations.isEmpty {
                Issue.record("seed \(seed): \(checker.violations.prefix(3).joined(separator: "; "))")
                return
            }
        }
        #expect(steps >= 100_000)
    }

    /// The event log records each session's standing, computed apart from its snapshot (cheaply, for a thousand
    /// sessions): the two must agree after every step.
    @Test func aSessionsStandingIsWhatItsSnapshotSays() {
        var compared = 0
        for seed in 1...UInt64(50) {
            var disagreement: String?
            _ = Self.replay(seed: seed, steps: Self.stepsPerRun) { engine, step, _, _, _ in
                guard disagreement == nil else { return }
                for id in engine.sessionIDs {
                    let standing = engine.standing(of: id)!
                    let expected = engine.snapshot(of: id)!.standing
                    compared += 1
                    if standing != expected {
                        disagreement = "step \(step), session \(id.rawValue): \(standing) against \(expected)"
                        return
                    }
                }
            }
            if let disagreement { Issue.record("seed \(seed): \(disagreement)"); return }
        }
        #expect(compared >= 10_000)
    }

    /// The daemon forgets an unaware app's session once `isIdle` says so, after every stream's end: it must say
    /// what the snapshot does (inactive, no stream) after every step, and no for a session the engine does not have.
    @Test func aSessionIsIdleWhenItsSnapshotIsInactiveWithNoStream() {
        var idle = 0
        var busy = 0
        for seed in 1...UInt64(50) {
            var disagreement: String?
            _ = Self.replay(seed: seed, steps: Self.stepsPerRun) { engine, step, _, _, _ in
                guard disagreement == nil else { return }
                for id in engine.sessionIDs + [SessionID(Int.max)] {
                    let snapshot = engine.snapshot(of: id)
                    let expected = snapshot?.state == .inactive && engine.streamIDs(of: id).isEmpty
                    if expected { idle += 1 } else { busy += 1 }
                    if engine.isIdle(id) != expected {
                        disagreement = "step \(step), session \(id.rawValue): isIdle \(!expected), snapshot \(String(describing: snapshot))"
                        return
                    }
                }
            }
            if let disagreement { Issue.record("seed \(seed): \(disagreement)"); return }
        }
        #expect(idle >= 1_000 && busy >= 1_000)
    }

    @Test func theSameStepsAlwaysGiveTheSameResults() {
        for seed in [7, 42, 1_000_003] as [UInt64] {
            let first = Self.replay(seed: seed, steps: 2_000) { _, _, _, _, _ in }
            let second = Self.replay(seed: seed, steps: 2_000) { _, _, _, _, _ in }
            #expect(first == second, "seed \(seed) gave different outcomes")
        }
    }

    /// Creates the sessions of `seed` and feeds `steps` random events, returning every outcome. `afterEach` gets
    /// the engine, the step, the event, the source that made it, and the event's actions.
    static func replay(
        seed: UInt64,
        steps: Int,
        afterEach: (PolicyEngine, Int, PolicyEvent, RandomEventSource, [PolicyAction]) -> Void
    ) -> [PolicyOutcome] {
        var source = RandomEventSource(seed: seed)
        var engine = PolicyEngine(outputs: [.receiver, .speaker], inputs: [.builtInMic])
        for (id, declaration) in source.declarations() { _ = engine.handle(.sessionCreated(id, declaration)) }
        var outcomes: [PolicyOutcome] = []
        for step in 1...steps {
            let event = source.nextEvent()
            let outcome = engine.handle(event)
            source.observe(outcome.actions)
            outcomes.append(outcome)
            afterEach(engine, step, event, source, outcome.actions)
        }
        return outcomes
    }
}

/// The invariants of the issue, plus a few that follow from POLICY.md.
struct InvariantChecker {
    var violations: [String] = []
    /// Sessions with a `began` not yet followed by an `ended`.
    private var awaitingEnd: Set<SessionID> = []
    private var silentSwitch = SilentSwitch.ring
    /// Players whose output stream the user paused or stopped last (not the player obeying the daemon).
    private var pausedByTheUser: Set<SessionID> = []

    mutating func check(
        _ engine: PolicyEngine,
        after event: PolicyEvent,
        from source: RandomEventSource,
        actions: [PolicyAction],
        step: Int
    ) {
        func fail(_ text: String) { violations.append("step \(step): \(text)") }
        checkPlayers(engine, after: event, from: source, actions: actions, step: step)
        for action in actions {
            guard case .notify(let id, let notification, _) = action else { continue }
            switch notification {
            case .interruptionBegan: awaitingEnd.insert(id)
            case .interruptionEnded:
                if awaitingEnd.remove(id) == nil { fail("\(id) got an ended with no began before it") }
            default: break
            }
        }
        let snapshots = engine.sessionIDs.compactMap { engine.snapshot(of: $0) }
        let activeNonmixable = snapshots.filter { $0.state == .active && !$0.options.contains(.mixWithOthers) }
        if activeNonmixable.count > 1 { fail("several active nonmixable sessions: \(activeNonmixable.map(\.id))") }
        for snapshot in snapshots {
            let heard = snapshot.output == .audible || snapshot.output == .ducked
            if heard && snapshot.state != .active { fail("\(snapshot.id) is heard while \(snapshot.state)") }
            if engine.silentSwitchPosition == .silent, snapshot.category.isSilencedBySwitchAndLock, heard {
                fail("\(snapshot.id) (\(snapshot.category)) is heard while the switch is silent")
            }
            if snapshot.output == .ducked {
                let ducker = snapshots.contains {
                    $0.id != snapshot.id && $0.state == .active && $0.options.contains(.duckOthers)
                }
                if !ducker { fail("\(snapshot.id) is ducked with no other active session ducking") }
            }
            for cause in snapshot.interruptedBy where engine.snapshot(of: cause)?.state != .active {
                fail("\(snapshot.id) waits on \(cause), which is not active")
            }
            if snapshot.state == .interrupted && snapshot.interruptedBy.isEmpty {
                fail("\(snapshot.id) interrupted by no one")
            }
        }
        // The engine judges again only the streams an event may have changed: what it last sent must still be
        // what the rules decide now, for every stream.
        for snapshot in snapshots {
            for stream in engine.streamIDs(of: snapshot.id) {
                guard let sent = engine.sentEffect(of: stream), let now = engine.verdict(of: stream) else {
                    fail("\(stream) of \(snapshot.id) never got a verdict")
                    continue
                }
                if sent.level != now.level || sent.port != now.port {
                    fail(
                        "\(stream) of \(snapshot.id) was sent \(sent.level)@\(sent.port?.rawValue ?? "-") but is now \(now.level)@\(now.port?.rawValue ?? "-")"
                    )
                }
            }
        }
    }
}

extension InvariantChecker {
    /// Section 6b: the daemon pauses only a playing player whose stream it has just silenced, plays only a player
    /// whose session is active, and never plays a player the user paused. (Only a player that answers can be held
    /// to the last: a user's pause while the daemon's is unanswered is taken for the answer, POLICY-NOTES.md.)
    fileprivate mutating func checkPlayers(
        _ engine: PolicyEngine,
        after event: PolicyEvent,
        from source: RandomEventSource,
        actions: [PolicyAction],
        step: Int
    ) {
        func fail(_ text: String) { violations.append("step \(step): \(text)") }
        if !source.lastEventObeysThePlayer {
            switch event {
            case .streamPaused(let stream), .streamRemoved(let stream):
                if stream.rawValue % 2 == 0 { pausedByTheUser.insert(SessionID(stream.rawValue / 2)) }
            case .streamStarted(let stream, let session, .output):
                if stream.rawValue % 2 == 0 { pausedByTheUser.remove(session) }
            case .mediaServicesReset:
                pausedByTheUser.removeAll()
            default: break
            }
        }
        for action in actions {
            switch action {
            case .pausePlayer(let session, _):
                guard let snapshot = engine.snapshot(of: session), snapshot.mediaPlayer == .playing else {
                    fail("\(session) was asked to pause but is no playing player")
                    continue
                }
                if snapshot.output != .silent { fail("\(session) was asked to pause while \(snapshot.output) (P1)") }
            case .playPlayer(let session, _):
                if engine.snapshot(of: session)?.state != .active { fail("\(session) was played while not active") }
                if pausedByTheUser.contains(session), source.answeringPlayers.contains(session) {
                    fail("\(session) was played although the user paused it")
                }
            default: break
            }
        }
        for id in engine.sessionIDs {
            guard let snapshot = engine.snapshot(of: id), snapshot.mediaPlayer != nil else { continue }
            if snapshot.state == .interrupted, snapshot.output == .audible || snapshot.output == .ducked {
                fail("player \(id) is heard while interrupted")
            }
            if snapshot.mediaPlayer == .paused, snapshot.output != .none {
                fail("player \(id) is paused yet its output is \(snapshot.output)")
            }
        }
    }
}
