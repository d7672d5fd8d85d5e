import PulseBackend

/// The stream journal (`streams.json`): for every sound-server stream the policy has changed (muted, ducked,
/// moved), the user's own values it replaced, so that a daemon that crashed can give them back when it starts
/// again (docs/STATE.md). It is written before the policy's first write to a stream and whenever the user's
/// values or the policy's aim change; an entry goes when the policy has nothing in force on the stream any
/// more or the stream ends.
struct JournalStreams: StateFileContent, Equatable {
    static let formatVersion = 1
    static let fileName = "streams.json"

    var version = Self.formatVersion
    /// The server instance the entries belong to; the indexes mean nothing on another one.
    var server: JournalServerIdentity?
    var entries: [JournalStreamEntry] = []
}

/// Which sound server instance: a stream index is stable only while the same server runs. PulseAudio and
/// pipewire-pulse choose a random `cookie` when they start, so a restarted server is told from the one the
/// entries were written on.
struct JournalServerIdentity: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The address the daemon was told (`--pulse-server`), or `default`.
    var address: String
    var name: String
    var host: String
    var cookie: UInt32

    init(address: String?, info: PulseServerInfo) {
        self.address = address ?? "default"
        self.name = info.serverName
        self.host = info.hostName
        self.cookie = info.cookie
    }

    var description: String { "\(name) on \(host) at \(address), cookie \(String(cookie, radix: 16))" }
}

/// One stream the policy changed.
struct JournalStreamEntry: Codable, Equatable, Sendable {
    enum Kind: String, Codable, Sendable {
        case sinkInput = "sink-input"
        case sourceOutput = "source-output"
    }

    var kind: Kind
    var index: UInt32
    /// What the stream said of itself, to make sure the index is still the same stream.
    var application: String?
    var processID: String?
    var role: String?
    /// The user's own values.
    var userVolume: [UInt32]
    var userMuted: Bool
    /// What the policy aims at: the user's volume scaled by the duck gain (the stream's volume lies between
    /// the two while the policy's is in force, a fade included), and whether it mutes the stream.
    var policyVolume: [UInt32]
    var policyMuted: Bool
    /// The device (sink or source name) the stream was on before the policy moved it, and the index of the one
    /// it moved it to; nil when the policy did not move it.
    var movedFrom: String?
    var movedTo: UInt32?
    /// module-stream-restore's key, and the device its saved entry had before the policy: if the stream ends
    /// while no daemon runs, the saved entry is given the user's values back on the next start.
    var restoreKey: String?
    var restoreDevice: String?

    var origin: StreamOrigin { kind == .sinkInput ? .sinkInput(index) : .sourceOutput(index) }

    /// Whether a stream the server reports now is the one this entry was written for.
    func isSameStream(_ properties: [String: String]) -> Bool {
        properties["application.name"] == application && properties["application.process.id"] == processID
            && properties["media.role"] == role
    }

    /// Whether `volume` is what the policy left (its aim, the user's volume, or a fade step in between on
    /// every channel): then putting the user's volume back overwrites nothing the user set.
    func isPolicyVolume(_ volume: PulseVolume) -> Bool {
        guard volume.channels.count == userVolume.count, userVolume.count == policyVolume.count else { return false }
        return zip(volume.channels, zip(userVolume, policyVolume)).allSatisfy { value, bounds in
            (min(bounds.0, bounds.1)...max(bounds.0, bounds.1)).contains(value)
        }
    }
}
