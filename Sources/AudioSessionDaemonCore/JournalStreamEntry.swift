// PulseVolume is a value here (its channels are compared); nothing of the connection is used.
import PulseBackend

/// One entry of the stream journal (`streams.json`, `JournalStreams` in the daemon): a stream the policy changed.
package struct JournalStreamEntry: Codable, Equatable, Sendable {
    package enum Kind: String, Codable, Sendable {
        case sinkInput = "sink-input"
        case sourceOutput = "source-output"
    }

    /// The entry's values (below, one by one), as written in the journal.
    package struct Values: Codable, Equatable, Sendable {
        package var kind: Kind
        package var index: UInt32
        /// What the stream said of itself, to make sure the index is still the same stream.
        package var application: String?
        package var processID: String?
        package var role: String?
        /// The user's own values.
        package var userVolume: [UInt32]
        package var userMuted: Bool
        /// What the policy aims at: the user's volume through its gain layer (scaled by the duck gain, 0 while
        /// it silences; the stream's volume lies between the two while the policy's is in force, a fade
        /// included), and whether it set the mute flag (only an older daemon did: the flag is the user's now).
        package var policyVolume: [UInt32]
        package var policyMuted: Bool
        /// The device (sink or source name) the stream was on before the policy moved it, and the index of the
        /// one it moved it to; nil when the policy did not move it.
        package var movedFrom: String?
        package var movedTo: UInt32?
        /// module-stream-restore's key, and the device its saved entry had before the policy: if the stream
        /// ends while no daemon runs, the saved entry is given the user's values back on the next start.
        package var restoreKey: String?
        package var restoreDevice: String?
    }

    /// The values, shared by every copy of the entry until one is changed. An entry is copied far more often
    /// than it is made or changed (into each journal the stream machine makes, compares, sorts and writes, a
    /// hundred entries in a call with a hundred streams), and a copy of the values took eight references.
    private final class Shared: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var shared: Shared

    package var values: Values {
        get { shared.values }
        set { shared = Shared(newValue) }
    }

    package var kind: Kind {
        get { values.kind }
        set { values.kind = newValue }
    }
    package var index: UInt32 {
        get { values.index }
        set { values.index = newValue }
    }
    package var application: String? {
        get { values.application }
        set { values.application = newValue }
    }
    package var processID: String? {
        get { values.processID }
        set { values.processID = newValue }
    }
    package var role: String? {
        get { values.role }
        set { values.role = newValue }
    }
    package var userVolume: [UInt32] {
        get { values.userVolume }
        set { values.userVolume = newValue }
    }
    package var userMuted: Bool {
        get { values.userMuted }
        set { values.userMuted = newValue }
    }
    package var policyVolume: [UInt32] {
        get { values.policyVolume }
        set { values.policyVolume = newValue }
    }
    package var policyMuted: Bool {
        get { values.policyMuted }
        set { values.policyMuted = newValue }
    }
    package var movedFrom: String? {
        get { values.movedFrom }
        set { values.movedFrom = newValue }
    }
    package var movedTo: UInt32? {
        get { values.movedTo }
        set { values.movedTo = newValue }
    }
    package var restoreKey: String? {
        get { values.restoreKey }
        set { values.restoreKey = newValue }
    }
    package var restoreDevice: String? {
        get { values.restoreDevice }
        set { values.restoreDevice = newValue }
    }

    package init(
        kind: Kind,
        index: UInt32,
        application: String? = nil,
        processID: String? = nil,
        role: String? = nil,
        userVolume: [UInt32],
        userMuted: Bool,
        policyVolume: [UInt32],
        policyMuted: Bool,
        movedFrom: String? = nil,
        movedTo: UInt32? = nil,
        restoreKey: String? = nil,
        restoreDevice: String? = nil
    ) {
        shared = Shared(
            Values(
                kind: kind,
                index: index,
                application: application,
                processID: processID,
                role: role,
                userVolume: userVolume,
                userMuted: userMuted,
                policyVolume: policyVolume,
                policyMuted: policyMuted,
                movedFrom: movedFrom,
                movedTo: movedTo,
                restoreKey: restoreKey,
                restoreDevice: restoreDevice
            )
        )
    }

    /// Read and written as its values alone, keys and all.
    package init(from decoder: any Decoder) throws {
        shared = Shared(try Values(from: decoder))
    }

    package func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }

    package static func == (a: JournalStreamEntry, b: JournalStreamEntry) -> Bool {
        a.shared === b.shared || a.values == b.values
    }

    package var origin: StreamOrigin { kind == .sinkInput ? .sinkInput(index) : .sourceOutput(index) }

    /// Whether a stream the server reports now is the one this entry was written for.
    package func isSameStream(_ properties: [String: String]) -> Bool {
        properties["application.name"] == application && properties["application.process.id"] == processID
            && properties["media.role"] == role
    }

    /// Whether `volume` is what the policy left (its aim, the user's volume, or a fade step in between on
    /// every channel): then putting the user's volume back overwrites nothing the user set.
    package func isPolicyVolume(_ volume: PulseVolume) -> Bool {
        guard volume.channels.count == userVolume.count, userVolume.count == policyVolume.count else { return false }
        return zip(volume.channels, zip(userVolume, policyVolume)).allSatisfy { value, bounds in
            (min(bounds.0, bounds.1)...max(bounds.0, bounds.1)).contains(value)
        }
    }
}
