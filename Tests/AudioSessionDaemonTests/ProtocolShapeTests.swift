import AudioSessionPolicy
import AudioSessionProtocol
import Testing

/// Requests are a command per operation and replies succeed or fail, in Swift; on the wire both stay as
/// docs/PROTOCOL.md has them, so clients written against the lines keep working.
@Suite struct ProtocolShapeTests {
    /// One command of each operation, with the line the client library and the tool send for it.
    static let lines: [(Command, String)] = [
        (.hello(app: "maps", call: true), #"{"app":"maps","call":true,"id":1,"op":"hello"}"#),
        (.setCategory(.playback, mode: .spokenAudio, options: [.duckOthers]),
         #"{"category":"playback","id":1,"mode":"spokenAudio","op":"setCategory","options":["duckOthers"]}"#),
        (.activate, #"{"id":1,"op":"activate"}"#),
        (.deactivate(notifyOthers: true), #"{"id":1,"notifyOthers":true,"op":"deactivate"}"#),
        (.overrideOutput(port: "speaker"), #"{"id":1,"op":"overrideOutput","port":"speaker"}"#),
        (.getState, #"{"id":1,"op":"getState"}"#),
        (.subscribe, #"{"id":1,"op":"subscribe"}"#),
        (.startStream(2, direction: .input), #"{"direction":"input","id":1,"op":"startStream","stream":2}"#),
        (.pauseStream(2), #"{"id":1,"op":"pauseStream","stream":2}"#),
        (.removeStream(2), #"{"id":1,"op":"removeStream","stream":2}"#),
        (.setSilentSwitch(.silent), #"{"id":1,"op":"setSilentSwitch","position":"silent"}"#),
        (.setScreenLock(locked: false), #"{"id":1,"locked":false,"op":"setScreenLock"}"#),
        (.setVolume(0.5), #"{"id":1,"op":"setVolume","volume":0.5}"#),
        (.setAppState(session: "maps", state: .background), #"{"id":1,"op":"setAppState","session":"maps","state":"background"}"#),
        (.selectOutput(port: "headphones"), #"{"id":1,"op":"selectOutput","port":"headphones"}"#),
        (.connectPort(port: "hdmi"), #"{"id":1,"op":"connectPort","port":"hdmi"}"#),
        (.disconnectPort(port: "hdmi"), #"{"id":1,"op":"disconnectPort","port":"hdmi"}"#),
        (.resumeStream(9), #"{"id":1,"op":"resumeStream","stream":9}"#),
        (.status, #"{"id":1,"op":"status"}"#),
        (.explain(session: "3"), #"{"id":1,"op":"explain","session":"3"}"#),
        (.watch, #"{"id":1,"op":"watch"}"#),
        (.decisions(count: 5), #"{"count":5,"id":1,"op":"decisions"}"#),
    ]

    @Test func everyOperationHasACommandWhoseLineIsTheDocumentedOne() throws {
        #expect(Set(Self.lines.map(\.0.operation)) == Set(Operation.allCases))
        for (command, line) in Self.lines {
            let request = Request(id: .number(1), command)
            #expect(LineCoding.encode(request) == line)
            #expect(try Request.decode(line: Array(line.utf8)) == request)
        }
    }

    /// A field that is optional on the wire and left out stays out: the request read back is the one sent.
    @Test(arguments: [
        (Command.hello(), #"{"op":"hello"}"#),
        (.deactivate(), #"{"op":"deactivate"}"#),
        (.decisions(), #"{"op":"decisions"}"#),
        (.setCategory(.ambient), #"{"category":"ambient","op":"setCategory"}"#),
    ])
    func anOptionalFieldLeftOutStaysOut(_ command: Command, _ line: String) throws {
        #expect(LineCoding.encode(Request(command)) == line)
        #expect(try Request.decode(line: Array(line.utf8)) == Request(command))
    }

    @Test func aReplySucceedsOrFailsOnTheWireAsBefore() throws {
        let state = ReplyResult(session: 3)
        #expect(LineCoding.encode(Reply.success(.number(1), state)) == #"{"id":1,"ok":true,"result":{"session":3}}"#)
        let refusal = ErrorBody(code: "insufficientPriority", message: "a call is active", rule: .A2)
        #expect(
            LineCoding.encode(Reply.failure(.number(2), refusal))
                == #"{"error":{"code":"insufficientPriority","message":"a call is active","rule":"A2"},"id":2,"ok":false}"#
        )
        let read = try LineCoding.decodeServerMessage(Array(#"{"id":2,"ok":false,"error":{"code":"badParam","message":"no"}}"#.utf8))
        #expect(read == .reply(.failure(.number(2), ErrorBody(code: "badParam", message: "no"))))
        // A failure without its error is not a reply this protocol has.
        #expect(throws: (any Error).self) { try LineCoding.decodeServerMessage(Array(#"{"id":2,"ok":false}"#.utf8)) }
    }
}
