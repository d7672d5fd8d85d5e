import AudioSessionConfiguration
import AudioSessionPolicy

/// D8: a client of the socket is exempt from A2 (it may activate during a call) by who it is, as the kernel
/// says: the program file its process runs and its user, against the `callExemptApps` entries that name an
/// `executable`. The name it declares never counts; the engine hears the decision, not the name.
extension DaemonCore {
    /// Whether `peer` is exempt, why in words (for `explain`), and whether that is worth a log line: it is when
    /// the client is exempt, and when it declares a name `callExemptApps` lists (which grants nothing here).
    package func callExemption(of peer: ClientPeer, declaredName: String) -> CallExemptionDecision {
        let runs = "\(peer.executable?.path ?? "an unknown program") as user \(peer.userID)"
        if let entry = callExemptClients.first(where: { matches($0, peer) }) {
            return CallExemptionDecision(
                exempt: true,
                because:
                    "exempt from A2 (may activate during a call): it runs \(runs), as callExemptApps entry \(entry) says",
                isNotable: true
            )
        }
        if engine.config.callExemptApps.contains(declaredName) {
            return CallExemptionDecision(
                exempt: false,
                because:
                    "not exempt from A2: callExemptApps names '\(declaredName)', but a client of the socket is exempt only by what it runs (an entry { executable: PATH }), and it runs \(runs)",
                isNotable: true
            )
        }
        return CallExemptionDecision(
            exempt: false,
            because: "not exempt from A2: it runs \(runs), which no callExemptApps entry names",
            isNotable: false
        )
    }

    private func matches(_ entry: CallExemptClient, _ peer: ClientPeer) -> Bool {
        guard entry.userID == nil || entry.userID == peer.userID, let running = peer.executable?.file else {
            return false
        }
        return fileIdentity(entry.executable) == running
    }

    /// After a reload: every client's session is decided again with the new entries.
    package mutating func decideCallExemptionsAgain() {
        for (client, record) in clients.sorted(by: { $0.key < $1.key }) {
            guard let session = record.session else { continue }
            let name = name(of: session)
            let decision = callExemption(of: record.peer, declaredName: name)
            clients[client]?.callExemption = decision
            guard decision.exempt != record.callExemption?.exempt else { continue }
            run(.callExemptionDecided(session, exempt: decision.exempt))
            effects.append(.log("\(name) (\(client)): \(decision.because)"))
        }
    }
}

/// What the daemon decided of a client's A2 exemption, and why.
package struct CallExemptionDecision: Sendable {
    package var exempt: Bool
    package var because: String
    /// Worth a line in the log when the session is created.
    package var isNotable: Bool
}
