import AudioSessionConfiguration
import AudioSessionPolicy

/// A scenario file (POLICY section 7): a device, some sessions, and steps to replay with expectations.
public struct Scenario: Sendable {
    /// The file it was read from, as given to the loader.
    public var file: String
    public var name: String
    public var config: PolicyConfig
    public var device: DeviceSetup
    /// In the order the file declares them.
    public var sessions: [SessionSpec]
    public var steps: [Step]
    /// The rule IDs named by `# covers:` comments in the file.
    public var coveredRules: Set<Rule>
}

/// The `device:` section: what the device has before the first step.
public struct DeviceSetup: Hashable, Sendable {
    /// Available output ports, in connection order (the last is the most recent).
    public var outputs: [Port] = [.speaker]
    public var inputs: [Port] = [.builtInMic]
    public var silentSwitch: SilentSwitch = .ring
    public var screenLocked = false
    public init() {}
}

/// One entry of `sessions:`.
public struct SessionSpec: Hashable, Sendable {
    public var name: String
    /// `appName` is the session's name.
    public var declaration: SessionDeclaration
    public var location: SourceLocation
    /// `answers: false` on a player: it never obeys the daemon's pause or play (P6's player that does not answer).
    public var playerAnswers = true
    public var isUnaware: Bool { declaration.unawareStreamProperties != nil }
    /// `mediaPlayer: true`: a player the daemon can pause (section 6b).
    public var isMediaPlayer: Bool { isUnaware && declaration.isMediaPlayer }
}

/// One entry of `steps:`, numbered from 1 in file order.
public struct Step: Hashable, Sendable {
    public var number: Int
    public var location: SourceLocation
    public var action: StepAction
    /// `error: CODE`: the step must fail with this code. Nil: it must succeed.
    public var expectedError: PolicyErrorCode?
}

/// What a step does; sessions are named as in `sessions:`.
public enum StepAction: Hashable, Sendable {
    case activate(String)
    case deactivate(String, notifyOthers: Bool)
    case setCategory(String, Category, mode: Mode, options: CategoryOptions)
    case play(String)
    case pause(String)
    case record(String)
    case stopRecording(String)
    case silentSwitch(SilentSwitch)
    case screenLocked(Bool)
    case background(String)
    case foreground(String)
    case connect(Port)
    case disconnect(Port)
    case selectOutput(Port)
    case overrideOutput(String, SpeakerOverride)
    case mediaServicesLost
    case mediaServicesReset
    case wait(milliseconds: Int)
    case expect(Expectation)

    /// The step's key as written in a file.
    public var keyword: String {
        switch self {
        case .activate: "activate"
        case .deactivate: "deactivate"
        case .setCategory: "setCategory"
        case .play: "play"
        case .pause: "pause"
        case .record: "record"
        case .stopRecording: "stopRecording"
        case .silentSwitch: "silentSwitch"
        case .screenLocked: "screen"
        case .background: "background"
        case .foreground: "foreground"
        case .connect: "connect"
        case .disconnect: "disconnect"
        case .selectOutput: "selectOutput"
        case .overrideOutput: "overrideOutput"
        case .mediaServicesLost, .mediaServicesReset: "mediaServices"
        case .wait: "wait"
        case .expect: "expect"
        }
    }
}

/// An `expect:` step: it checks only what it lists.
public struct Expectation: Hashable, Sendable {
    /// Per session, in the order written.
    public var sessions: [SessionExpectation] = []
    /// Nil when absent (not checked); `[]` checks that no notification was sent since the previous `expect`.
    public var notifications: [ExpectedNotification]?
    public init() {}
}

/// What one session must look like; nil fields are not checked.
public struct SessionExpectation: Hashable, Sendable {
    public var session: String
    public var location: SourceLocation
    public var state: SessionState?
    public var output: OutputSummary?
    public var input: InputSummary?
    /// `.some(nil)` is `route: none`.
    public var route: Port??
    public var inputRoute: Port??
    public var category: Category?
    public var mode: Mode?
    /// Compared as a set, implied options included.
    public var options: CategoryOptions?
    public var otherAudioPlaying: Bool?
    public var secondaryAudioHint: Bool?
    /// Only for a player (section 6b).
    public var mediaPlayer: MediaPlayerState?

    public init(session: String, location: SourceLocation) {
        self.session = session
        self.location = location
    }
}

/// One entry of `expect.notifications`.
public struct ExpectedNotification: Hashable, Sendable {
    public var session: String
    public var kind: Kind
    public var location: SourceLocation

    public enum Kind: Hashable, Sendable {
        case interruptionBegan
        /// Nil matches either value.
        case interruptionEnded(shouldResume: Bool?)
        case routeChange(RouteChangeReason)
        case silenceSecondaryAudioHint(begins: Bool)
        case mediaServicesLost
        case mediaServicesReset
    }

    public init(session: String, kind: Kind, location: SourceLocation) {
        self.session = session
        self.kind = kind
        self.location = location
    }
}
