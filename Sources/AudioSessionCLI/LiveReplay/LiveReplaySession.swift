import AudioSessionPolicy
import AudioSessionProtocol
import AudioSessionScenario
import PulseBackend

/// One scenario session played for real: an aware app has its own control connection (its session in the
/// daemon) and streams tagged with its session number; an unaware app has only streams with its `stream:`
/// properties, which the daemon classifies.
final class LiveSession {
    let spec: SessionSpec
    /// Its place in `sessions:`, the `SessionID` the scenario's names give it.
    let index: Int
    /// Its session in the daemon, which ends when this closes (`close()`); nil for an unaware app.
    private(set) var connection: ControlConnection?
    /// The daemon's number for the session: from `hello` for an aware app; found through its streams for an
    /// unaware one (nil until the daemon has seen one).
    var number: Int?
    var output: PulsePlaybackStream?
    var outputCorked = false
    /// A player's mpv (`mediaPlayer: true`), from its first `play:`; its stream is `playerStream`.
    var player: LivePlayer?
    /// The sink-input of the player's mpv, once the server has it.
    var playerStream: UInt32?
    /// The player's MPRIS name, as the daemon found it (`player` in its status).
    var playerBusName: String?
    /// The output stream's volume before the policy touched it: the user's, which ducking scales.
    var userVolume: PulseVolume?
    var input: PulseRecordStream?
    var inputCorked = false
    /// Notifications received since the previous `expect`.
    var received: [Event] = []
    /// Notifications received during the current step, for the timeline.
    var receivedThisStep: [Event] = []

    var name: String { spec.name }
    var isPlayer: Bool { spec.isMediaPlayer }
    /// The sink-input its output plays through: the replay's own stream, or its player's mpv's.
    var outputIndex: UInt32? { output?.sinkInputIndex ?? playerStream }
    var isUnaware: Bool { spec.isUnaware }
    var id: SessionID { SessionID(index) }

    init(spec: SessionSpec, index: Int, socket: String) throws {
        self.spec = spec
        self.index = index
        connection = spec.isUnaware ? nil : try ControlConnection(path: socket, readTimeout: .seconds(10))
    }

    /// `hello`, the declared category, `subscribe`: the session as the file declares it, inactive.
    func declare() throws {
        guard let connection else { return }
        let declaration = spec.declaration
        let hello = try connection.result(
            Request(.hello(app: spec.name, call: declaration.isCall ? true : nil))
        )
        number = hello.session
        _ = try connection.result(
            Request(.setCategory(declaration.category, mode: declaration.mode, options: declaration.options))
        )
        _ = try connection.result(Request(.subscribe))
    }

    /// The properties of its streams: the session number for an aware app, else the file's `stream:`. The
    /// process id is not the replay's own: the daemon would give a stream of a process that holds a session to
    /// that session, and every aware session of a replay is in the replay's process.
    func streamProperties() -> [String: String] {
        var properties = spec.declaration.unawareStreamProperties ?? [:]
        if let number, !isUnaware { properties["audiosession.id"] = String(number) }
        properties["application.process.id"] = properties["application.process.id"] ?? "0"
        return properties
    }

    /// Reads whatever notifications have arrived.
    func collect() throws {
        guard let connection else { return }
        let events = try connection.drainEvents().filter { $0.notification != nil }
        received += events
        receivedThisStep += events
    }

    /// Ends its streams and its connection (its session then ends in the daemon).
    func close() {
        output?.close()
        input?.close()
        player?.stop()
        output = nil
        input = nil
        player = nil
        playerStream = nil
        connection = nil
    }
}
