import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Testing

@testable import AudioSessionDaemon

/// The daemon's logic without sockets or a sound server: inputs in, effects out.
@Suite struct DaemonCoreTests {
    static let owner: UInt32 = 1000
    static let music = ClientID(rawValue: 1)
    static let phone = ClientID(rawValue: 2)

    static func core() -> DaemonCore {
        var core = DaemonCore(engine: PolicyEngine(outputs: [.speaker], inputs: [.builtInMic]), controlUserID: owner)
        _ = core.handle(.clientConnected(music, ClientPeer(processID: 100, userID: owner, processName: "music")))
        _ = core.handle(.clientConnected(phone, ClientPeer(processID: 200, userID: owner, processName: "phone")))
        return core
    }

    static func request(_ command: Command) -> Request { Request(id: .number(7), command) }

    static func replies(_ effects: [DaemonEffect], to client: ClientID) -> [Reply] {
        effects.compactMap { if case .send(client, .reply(let reply)) = $0 { reply } else { nil } }
    }

    static func events(_ effects: [DaemonEffect], to client: ClientID) -> [Event] {
        effects.compactMap { if case .send(client, .event(let event)) = $0 { event } else { nil } }
    }

    @Test func aClientsRequestsActOnItsOwnSessionAndReplyWithItsState() throws {
        var core = Self.core()
        let hello = Self.replies(core.handle(.request(Self.music, Self.request(.hello(app: "Radio")))), to: Self.music)
        #expect(hello.first?.result?.session == 1)
        #expect(hello.first?.result?.state?.app == "Radio")
        #expect(hello.first?.result?.soundServer == true)
        let set = Self.replies(core.handle(.request(Self.music, Self.request(.setCategory(.playback)))), to: Self.music)
        #expect(set == [.success(.number(7), ReplyResult(state: try #require(core.state(of: SessionID(1)))))])
        let refused = Self.replies(
            core.handle(.request(Self.music, Self.request(.setCategory(.ambient, options: [.defaultToSpeaker])))),
            to: Self.music
        )
        #expect(refused.first?.error?.code == "badParam")
        #expect(refused.first?.error?.rule == .C4)
        #expect(core.state(of: SessionID(1))?.category == .playback)
    }

    @Test func aSubscribedClientHearsItsInterruptionAndWhyAndAnUnsubscribedOneDoesNot() {
        var core = Self.core()
        _ = core.handle(.request(Self.music, Self.request(.subscribe)))
        _ = core.handle(.request(Self.music, Self.request(.setCategory(.playback))))
        _ = core.handle(.request(Self.music, Self.request(.activate)))
        _ = core.handle(.request(Self.phone, Self.request(.hello(call: true))))
        let effects = core.handle(.request(Self.phone, Self.request(.activate)))
        #expect(Self.events(effects, to: Self.music) == [Event(.interruption, type: "began", because: "interrupted by phone (A6)")])
        #expect(Self.events(effects, to: Self.phone) == [])
    }

    @Test func aDisconnectEndsTheInterruptionsItCausedWithoutResume() {
        var core = Self.core()
        _ = core.handle(.request(Self.music, Self.request(.subscribe)))
        _ = core.handle(.request(Self.music, Self.request(.setCategory(.playback))))
        _ = core.handle(.request(Self.music, Self.request(.activate)))
        _ = core.handle(.request(Self.phone, Self.request(.setCategory(.playback))))
        _ = core.handle(.request(Self.phone, Self.request(.activate)))
        let effects = core.handle(.clientDisconnected(Self.phone))
        #expect(Self.events(effects, to: Self.music).map(\.shouldResume) == [false])
        #expect(core.engine.sessionIDs == [SessionID(1)])
    }

    @Test func controlRequestsAndCallsNeedTheDaemonsUser() {
        var core = Self.core()
        let stranger = ClientID(rawValue: 3)
        _ = core.handle(.clientConnected(stranger, ClientPeer(processID: 300, userID: 4242, processName: "x")))
        for request in [Self.request(.setSilentSwitch(.silent)), Self.request(.hello(call: true))] {
            let reply = Self.replies(core.handle(.request(stranger, request)), to: stranger).first
            #expect(reply?.error?.code == "notPermitted")
        }
        #expect(core.engine.silentSwitchPosition == .ring)
        let root = ClientID(rawValue: 4)
        _ = core.handle(.clientConnected(root, ClientPeer(processID: 400, userID: 0, processName: "root")))
        #expect(Self.replies(core.handle(.request(root, Self.request(.setSilentSwitch(.silent)))), to: root).first?.ok == true)
    }

    @Test func aBadLineGetsAnErrorNamingTheFieldAndChangesNothing() {
        var core = Self.core()
        let error = ProtocolError(.badField, "category: 'loud' is not one of: ...", field: "category", id: .number(3))
        let replies = Self.replies(core.handle(.badRequest(Self.music, error)), to: Self.music)
        #expect(replies == [.failure(.number(3), ErrorBody(code: "badField", message: error.message, field: "category"))])
        #expect(core.engine.sessionIDs.isEmpty)
    }

    /// POLICY section 4's names, and no others: a request with another gets an error listing the names it takes,
    /// with `field: "port"`, and changes nothing.
    @Test func aPortRequestNamesThePortsItTakes() {
        var core = Self.core()
        let root = ClientID(rawValue: 4)
        _ = core.handle(.clientConnected(root, ClientPeer(processID: 400, userID: 0, processName: "root")))
        func reply(_ request: (_ port: String) -> Command, _ port: String) -> ErrorBody? {
            Self.replies(core.handle(.request(root, Self.request(request(port)))), to: root).first?.error
        }
        let outputs = "speaker, receiver, headphones, headset, bluetoothA2DP, bluetoothHFP, usbAudio, hdmi, lineOut, carAudio"
        let inputs = "bluetoothHFP, usbAudio, builtInMic, headsetMic, lineIn"
        #expect(
            reply(Command.selectOutput, "Speaker")
                == ErrorBody(code: "badField", message: "port: 'Speaker' is not an output port; expected one of: \(outputs)", field: "port")
        )
        #expect(
            reply(Command.selectOutput, "builtInMic")
                == ErrorBody(
                    code: "badParam",
                    message: "builtInMic is an input port, not an output (the outputs are \(outputs)); available: speaker",
                    rule: .R3,
                    field: "port"
                )
        )
        #expect(reply(Command.selectOutput, "hdmi")?.message == "hdmi is not an available output; available: speaker")
        for op in [Command.connectPort, Command.disconnectPort] {
            #expect(
                reply(op, "headphone")
                    == ErrorBody(
                        code: "badField",
                        message: "port: 'headphone' is not a port; expected an output (\(outputs)) or an input (\(inputs))",
                        field: "port"
                    )
            )
            #expect(reply(op, "")?.code == "badField")
        }
        #expect(core.engine.availablePorts.outputs == [.speaker] && core.engine.availablePorts.inputs == [.builtInMic])
        #expect(core.engine.availablePorts.selection == nil)
    }

    @Test func streamsFindTheirSessionByIdThenByProcessThenByRules() {
        var core = Self.core()
        _ = core.handle(.request(Self.music, Self.request(.hello())))
        _ = core.handle(.request(Self.phone, Self.request(.hello())))
        _ = core.handle(.sound(.streamSeen(SoundStream(origin: .sinkInput(10), direction: .output, properties: ["audiosession.id": "1", "application.process.id": "200"], isRunning: true))))
        _ = core.handle(.sound(.streamSeen(SoundStream(origin: .sinkInput(11), direction: .output, properties: ["application.process.id": "200"], isRunning: true))))
        _ = core.handle(.sound(.streamSeen(SoundStream(origin: .sinkInput(12), direction: .output, properties: ["media.role": "game", "application.name": "Chess"], isRunning: true))))
        #expect(core.engine.streamIDs(of: SessionID(1)).count == 1)
        #expect(core.engine.streamIDs(of: SessionID(2)).count == 1)
        let unaware = core.engine.snapshot(of: SessionID(3))
        #expect(unaware?.isUnaware == true)
        #expect(unaware?.category == .ambient)
        #expect(core.sessionNames[SessionID(3)] == "Chess (game)")
    }

    @Test func aStreamSeenCorkedWaitsUntilItRuns() {
        var core = Self.core()
        let corked = SoundStream(origin: .sinkInput(5), direction: .output, properties: ["media.role": "music"], isRunning: false)
        _ = core.handle(.sound(.streamSeen(corked)))
        #expect(core.engine.sessionIDs.isEmpty)
        var running = corked
        running.isRunning = true
        let effects = core.handle(.sound(.streamSeen(running)))
        #expect(effects.contains { if case .enforce(.sinkInput(5), let verdict) = $0 { verdict.level == .audible } else { false } })
    }

    @Test func anUnawareAppsSessionIsForgottenOnceItsStreamIsGoneAndItsGraceRanOut() throws {
        var core = Self.core()
        let stream = SoundStream(origin: .sinkInput(5), direction: .output, properties: ["media.role": "event"], isRunning: true)
        _ = core.handle(.sound(.streamSeen(stream)))
        let gone = core.handle(.sound(.streamGone(.sinkInput(5))))
        let timer = try #require(gone.compactMap { if case .startTimer(let timer, 500) = $0 { timer } else { nil } }.first)
        #expect(core.engine.sessionIDs.count == 1)
        _ = core.handle(.timerFired(timer))
        #expect(core.engine.sessionIDs.isEmpty)
        #expect(core.unawareSessions.isEmpty)
    }

    @Test func losingTheSoundServerAndGettingItBackResetsEverySession() {
        var core = Self.core()
        _ = core.handle(.request(Self.music, Self.request(.subscribe)))
        _ = core.handle(.request(Self.music, Self.request(.activate)))
        _ = core.handle(.sound(.streamSeen(SoundStream(origin: .sinkInput(1), direction: .output, properties: ["media.role": "music"], isRunning: true))))
        let lost = core.handle(.sound(.serverLost(reason: "killed")))
        #expect(Self.events(lost, to: Self.music).map(\.event) == [.mediaServicesWereLost])
        let back = core.handle(.sound(.serverConnected))
        #expect(Self.events(back, to: Self.music).map(\.event) == [.mediaServicesWereReset])
        #expect(core.state(of: SessionID(1))?.state == .inactive)
        #expect(core.streamIDs.isEmpty)
        #expect(core.unawareSessions.isEmpty)
    }

    @Test func aClientReportedStreamGetsItsVerdictAsAnEvent() {
        var core = Self.core()
        _ = core.handle(.request(Self.music, Self.request(.setCategory(.playback))))
        let effects = core.handle(.request(Self.music, Self.request(.startStream(3, direction: .output))))
        let verdicts = Self.events(effects, to: Self.music).filter { $0.event == .streamVerdict }
        #expect(verdicts.map(\.stream) == [3])
        #expect(verdicts.map(\.verdict) == ["audible"])
        #expect(!effects.contains { if case .enforce = $0 { true } else { false } })
    }
}

extension DaemonCoreTests {
    @Test func getStateBeforeAnyOtherRequestCreatesTheSessionAndReportsIt() {
        var core = Self.core()
        let replies = Self.replies(core.handle(.request(Self.music, Self.request(.getState))), to: Self.music)
        #expect(replies.first?.result?.state?.state == .inactive)
    }
}

extension DaemonCoreTests {
    @Test func aStreamNamingAnEndedSessionBecomesAnUnawareAppsNotAnotherSessionOfTheSameProcess() {
        var core = Self.core()
        let sibling = ClientID(rawValue: 9)
        _ = core.handle(.clientConnected(sibling, ClientPeer(processID: 100, userID: Self.owner, processName: "music")))
        _ = core.handle(.request(Self.music, Self.request(.hello())))
        _ = core.handle(.request(sibling, Self.request(.hello())))
        _ = core.handle(.clientDisconnected(Self.music))
        let orphan = SoundStream(origin: .sinkInput(3), direction: .output, properties: ["audiosession.id": "1", "application.process.id": "100", "media.role": "music"], isRunning: true)
        _ = core.handle(.sound(.streamSeen(orphan)))
        #expect(core.engine.streamIDs(of: SessionID(2)).isEmpty)
        #expect(core.unawareSessions.count == 1)
    }
}
