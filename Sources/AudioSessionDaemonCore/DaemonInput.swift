import AudioSessionConfiguration
import AudioSessionPolicy
import AudioSessionProtocol

/// Everything that happens to the daemon, in order: the control socket, the sound server and timers all feed
/// one stream of these, and one loop takes them (`PolicyService`). Tests feed the same entry point by hand.
package enum DaemonInput: Sendable {
    case clientConnected(ClientID, ClientPeer)
    case request(ClientID, Request)
    /// A line that is not a valid request; answered with an error and otherwise ignored.
    case badRequest(ClientID, ProtocolError)
    case clientDisconnected(ClientID)
    case timerFired(TimerID)
    case sound(SoundFact)
    /// What the session bus says of media players (section 6b).
    case player(PlayerFact)
    /// What feedbackd, logind or the screensaver said over D-Bus (`Bus/`).
    case platform(PlatformFact)
    /// A reloaded configuration (SIGHUP).
    case reconfigure(DaemonConfiguration)
}

/// A connection to the control socket, numbered by the daemon.
package struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: Int
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    package var description: String { "client#\(rawValue)" }

    package init(rawValue: Int) { self.rawValue = rawValue }
}

/// Who is at the other end of a connection, from the kernel (SO_PEERCRED), and the process's name.
package struct ClientPeer: Sendable, Equatable {
    package var processID: Int32
    package var userID: UInt32
    package var processName: String
    /// The program file the process ran when it connected (`/proc/PID/exe`); nil when it could not be read.
    package var executable: ExecutableFile? = nil

    package init(processID: Int32, userID: UInt32, processName: String, executable: ExecutableFile? = nil) {
        self.processID = processID
        self.userID = userID
        self.processName = processName
        self.executable = executable
    }
}

/// What the sound server tells the daemon, already in the policy's words.
package enum SoundFact: Sendable, Equatable {
    /// Connected (again); what follows is the inventory: ports, then streams, then `inventoryTaken`.
    case serverConnected
    /// The inventory is complete: the port events before it were the daemon finding the devices, not the user
    /// plugging them in.
    case inventoryTaken
    case serverLost(reason: String)
    case portAvailable(Port)
    case portGone(Port)
    /// Someone else (the user, a mixer app) changed the default output.
    case outputSelectedByUser(Port)
    /// A stream appeared or changed.
    case streamSeen(SoundStream)
    case streamGone(StreamOrigin)
    /// The server moved a stream by itself (its device went away) and it is held silent: the daemon is asked
    /// for the stream's verdict again, in case the move changed nothing the policy sees.
    case streamMovedByServer(StreamOrigin)
    /// The ALSA mixer control (no sound server) opened with this volume, or someone else set it so.
    case mixerVolume(Double)
    /// Someone else unmuted the ALSA mixer control while the daemon held it for the silent switch: their wish
    /// stands until the switch's next decision.
    case mixerReleasedByUser
    /// The ALSA mixer control could not be used any more.
    case mixerGone(reason: String)
}

/// A stream of the sound server.
package struct SoundStream: Sendable, Equatable {
    package var origin: StreamOrigin
    package var direction: StreamDirection
    /// Its properties: `media.role`, `application.name`, `application.process.id`, `audiosession.id`... Only
    /// those in `propertyKeys`.
    package var properties: [String: String]
    /// Not corked.
    package var isRunning: Bool
    /// The process playing it (`application.process.id`) and its ancestors, nearest first, as the shell read
    /// them (/proc) when the stream first appeared: a player found on the bus is matched against them (section
    /// 6b). Empty when the stream names no process or the shell could not read it.
    package var processLine: [Int32] = []

    package init(
        origin: StreamOrigin,
        direction: StreamDirection,
        properties: [String: String],
        isRunning: Bool,
        processLine: [Int32] = []
    ) {
        self.origin = origin
        self.direction = direction
        self.properties = properties
        self.isRunning = isRunning
        self.processLine = processLine
    }

    /// Every property of a stream the daemon reads: the session it names, the app and its process, the rules'
    /// (`ClassificationRule.matchableProperties`), and module-stream-restore's key. The sound-server connection
    /// keeps only these of a stream's few dozen, and of its client's (whose process the daemon reads): an info
    /// took 20 K instructions to convert with them all, 11 K so (docs/BENCHMARKS.md).
    package static let propertyKeys: [String] = {
        let own = [
            "audiosession.id", "application.process.id", "application.name", "application.process.binary",
            "media.role", "module-stream-restore.id",
        ]
        return own + ClassificationRule.matchableProperties.filter { !own.contains($0) }
    }()
}

/// Where a stream lives.
package enum StreamOrigin: Hashable, Sendable, CustomStringConvertible {
    case sinkInput(UInt32)
    case sourceOutput(UInt32)
    /// A stream a client reported itself (`startStream`), with the client's own number for it.
    case client(ClientID, Int)

    package var description: String {
        switch self {
        case .sinkInput(let index): "pulse sink-input \(index)"
        case .sourceOutput(let index): "pulse source-output \(index)"
        case .client(let client, let number): "\(client) stream \(number)"
        }
    }

    /// Hashed as the engine's own numbers are (`NumberedKeyHash`): a server gives its streams' indices out in order.
    package func _rawHashValue(seed: Int) -> Int {
        switch self {
        case .sinkInput(let index): NumberedKeyHash.of(UInt64(index), seed: seed)
        case .sourceOutput(let index): NumberedKeyHash.of(1 << 32 | UInt64(index), seed: seed)
        case .client(let client, let number):
            // Another client's streams may share a number: the client's goes above it.
            NumberedKeyHash.of(
                2 << 32 | UInt64(truncatingIfNeeded: client.rawValue) << 40 ^ UInt64(truncatingIfNeeded: number),
                seed: seed
            )
        }
    }
}

/// What the daemon must do after an input: send, enforce, keep time, log. `PolicyService` carries them out.
package enum DaemonEffect: Sendable, Equatable {
    case send(ClientID, ServerMessage)
    /// Make a sound-server stream sound as the verdict says.
    case enforce(StreamOrigin, StreamVerdict)
    /// Set the system volume on the ALSA mixer control.
    case setMixerVolume(Double)
    /// Hold the ALSA mixer control muted (the silent switch), or give it back.
    case holdMixerMuted(Bool)
    /// Set feedbackd's profile (the switch was set through the socket), so that the phone's shell shows it.
    case setFeedbackdProfile(String)
    case startTimer(TimerID, milliseconds: Int)
    case cancelTimer(TimerID)
    /// Send a media player (its bus name) a command, waiting at most `timeoutMs` for its answer (section 6b).
    case callPlayer(String, PlayerCommand, timeoutMs: Int)
    /// One line per decision, with its reason.
    case log(LogLine)
}
