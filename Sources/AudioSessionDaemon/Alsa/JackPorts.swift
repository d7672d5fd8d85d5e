import AlsaBackend
import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionPolicy

/// Which ports a card's jack controls stand for, and how they change. Phantom jacks (always-present devices
/// such as the internal speaker) and jacks no rule names are not ports: the speaker and the built-in
/// microphone are there from the start.
enum JackPorts {
    /// The ports of the plugged jacks, in the card's order, each once.
    static func ports(of jacks: [JackControl], settings: AlsaSettings) -> [Port] {
        var ports: [Port] = []
        for jack in jacks where jack.isPlugged && !jack.isPhantom {
            if let port = settings.port(ofJack: jack.name), !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    /// What the policy is told when the plugged ports go from `old` to `new`: ports gone first (R4 stops the
    /// music before anything else is decided), then ports that arrived.
    static func facts(from old: [Port], to new: [Port]) -> [SoundFact] {
        old.filter { !new.contains($0) }.map { .portGone($0) }
            + new.filter { !old.contains($0) }.map { .portAvailable($0) }
    }
}
