import AudioSessionPolicy
import AudioSessionTestSupport

/// Makes random but plausible events for a handful of sessions: aware and unaware apps of every category,
/// players among the unaware (section 6b), legal and illegal requests, streams, ports, switch, lock, media services
/// and the timers the engine asked for.
struct RandomEventSource {
    var random: SeededRandom
    let sessionCount: Int
    private(set) var pendingTimers: [TimerID] = []
    /// Players that obey the daemon at once; the others never answer (P6).
    private(set) var answeringPlayers: Set<SessionID> = []
    /// Unaware apps' sessions: the daemon may find their player late (`playerFound`) or lose it (`playerLost`).
    private var unaware: Set<SessionID> = []
    /// What answering players did about the daemon's last commands, handed out before any other event.
    private var obeyed: [PolicyEvent] = []
    /// Whether the last event handed out was a player obeying the daemon rather than something the user did.
    private(set) var lastEventObeysThePlayer = false

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        sessionCount = Int.random(in: 2...5, using: &random)
    }

    /// The sessions to create first.
    mutating func declarations() -> [(SessionID, SessionDeclaration)] {
        (0..<sessionCount).map { index in
            let id = SessionID(index)
            if Int.random(in: 0..<4, using: &random) == 0 {
                let role = ["music", "phone", "game", "notification", "alarm", "navigation", "none"].randomElement(
                    using: &random
                )!
                let properties = role == "none" ? [:] : ["media.role": role]
                let isPlayer = Int.random(in: 0..<3, using: &random) != 0
                unaware.insert(id)
                if isPlayer, Int.random(in: 0..<4, using: &random) != 0 { answeringPlayers.insert(id) }
                return (
                    id,
                    SessionDeclaration(
                        appName: "app\(index)",
                        unawareStreamProperties: properties,
                        isMediaPlayer: isPlayer
                    )
                )
            }
            let (category, mode, options) = randomCategory(legalOnly: true)
            return (
                id,
                SessionDeclaration(
                    appName: "app\(index)",
                    category: category,
                    mode: mode,
                    options: options,
                    isCall: category == .playAndRecord && Bool.random(using: &random),
                    appState: Bool.random(using: &random) ? .foreground : .background
                )
            )
        }
    }

    /// A category with a mode and options; legal (C4, C5) unless illegal ones are allowed and the dice say so.
    mutating func randomCategory(legalOnly: Bool) -> (Category, Mode, CategoryOptions) {
        while true {
            let category = Category.allCases.randomElement(using: &random)!
            let mode =
                Int.random(in: 0..<3, using: &random) == 0 ? Mode.allCases.randomElement(using: &random)! : .default
            var options = CategoryOptions()
            for (_, option) in CategoryOptions.named where Int.random(in: 0..<4, using: &random) == 0 {
                options.insert(option)
            }
            let legal = mode.isLegal(with: category) && options.firstIllegalOption(for: category) == nil
            if legal || !legalOnly { return (category, mode, options) }
        }
    }

    /// The next event. Timers the engine asked for are fired now and then, as a real clock would.
    mutating func nextEvent() -> PolicyEvent {
        lastEventObeysThePlayer = !obeyed.isEmpty
        if !obeyed.isEmpty { return obeyed.removeFirst() }
        let session = SessionID(Int.random(in: 0..<sessionCount, using: &random))
        let stream = StreamID(session.rawValue * 2 + Int.random(in: 0...1, using: &random))
        let direction: StreamDirection = stream.rawValue % 2 == 0 ? .output : .input
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<16: return .activate(session)
        case 16..<28: return .deactivate(session, notifyOthers: Bool.random(using: &random))
        case 28..<34:
            let (category, mode, options) = randomCategory(legalOnly: Int.random(in: 0..<4, using: &random) != 0)
            return .setCategory(session, category, mode: mode, options: options)
        case 34..<50: return .streamStarted(stream, session: session, direction: direction)
        case 50..<58: return .streamPaused(stream)
        case 58..<61: return .streamRemoved(stream)
        case 61..<65: return .silentSwitch(Bool.random(using: &random) ? .silent : .ring)
        case 65..<68: return .screenLocked(Bool.random(using: &random))
        case 68..<72: return .appState(session, Bool.random(using: &random) ? .foreground : .background)
        case 72..<78: return .portConnected(Port.allCases.randomElement(using: &random)!)
        case 78..<84: return .portDisconnected(Port.allCases.randomElement(using: &random)!)
        case 84..<87: return .outputSelected(Port.allCases.randomElement(using: &random)!)
        case 87..<89: return .outputOverridden(session, Bool.random(using: &random) ? .speaker : .none)
        case 89: return .mediaServicesLost
        case 90: return .mediaServicesReset
        case 91 where unaware.contains(session):
            // The daemon finds a player after its stream, or its player leaves the bus (P6).
            if Bool.random(using: &random) {
                if Int.random(in: 0..<4, using: &random) != 0 { answeringPlayers.insert(session) }
                return .playerFound(session)
            }
            answeringPlayers.remove(session)
            return .playerLost(session)
        default:
            guard !pendingTimers.isEmpty else { return .activate(session) }
            return .timerFired(pendingTimers.remove(at: Int.random(in: 0..<pendingTimers.count, using: &random)))
        }
    }

    /// Keeps track of the timers the engine asked for and cancelled.
    mutating func observe(_ actions: [PolicyAction]) {
        for action in actions {
            switch action {
            case .startTimer(let timer, _): pendingTimers.append(timer)
            case .cancelTimer(let timer): pendingTimers.removeAll { $0 == timer }
            case .pausePlayer(let session, _) where answeringPlayers.contains(session):
                obeyed.append(.streamPaused(StreamID(session.rawValue * 2)))
            case .playPlayer(let session, _) where answeringPlayers.contains(session):
                obeyed.append(.streamStarted(StreamID(session.rawValue * 2), session: session, direction: .output))
            default: break
            }
        }
    }
}
