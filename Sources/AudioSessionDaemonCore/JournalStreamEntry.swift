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

    /// The values; changing one makes the entry's own copy.
    package var values: Values {
        get { shared.values }
        set { shared = Shared(newValue) }
    }

    package var kind: Kind { values.kind }
    package var index: UInt32 { values.index }
    package var application: String? { values.application }
    package var processID: String? { values.processID }
    package var role: String? { values.role }
    package var userVolume: [UInt32] { values.userVolume }
    package var userMuted: Bool { values.userMuted }
    package var policyVolume: [UInt32] { values.policyVolume }
    package var policyMuted: Bool { values.policyMuted }
    package var movedFrom: String? { values.movedFrom }
    package var movedTo: UInt32? { values.movedTo }
    package var restoreKey: String? { values.restoreKey }
    package var restoreDevice: String? { values.restoreDevice }

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
