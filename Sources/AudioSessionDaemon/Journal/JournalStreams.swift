import AudioSessionDaemonCore
import PulseBackend

/// The stream journal (`streams.json` and `streams.1.json`, written in turn: `JournalSlots`): for every
/// sound-server stream the policy has changed (muted, ducked, moved), the user's own values it replaced, so
/// that a daemon that crashed can give them back when it starts again (docs/STATE.md). It is written before the
/// policy's first write to a stream and whenever the user's values or the policy's aim change; an entry goes
/// when the policy has nothing in force on the stream any more or the stream ends.
struct JournalStreams: StateFileContent, Equatable {
    static let formatVersion = 1
    static let fileName = "streams.json"

    var version = Self.formatVersion
    /// The server instance the entries belong to; the indexes mean nothing on another one.
    var server: JournalServerIdentity?
    var entries: [JournalStreamEntry] = []
    /// The write's number, first and last in the file (`JournalSlots`): a write cut short has the new one first
    /// and the old one, or none, last. Neither in a file written whole and renamed into place.
    var write: UInt64?
    var end: UInt64?
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
