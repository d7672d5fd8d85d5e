import AudioSessionPolicy
import AudioSessionScenario

/// D8: a client of the socket is exempt from A2 (it may activate during a call) by who it is, as the kernel
/// says: the program file its process runs and its user, against the `callExemptApps` entries that name an
/// `executable`. The name it declares never counts; the engine hears the decision, not the name.
extension DaemonCore {
    /// Whether `peer` is exempt and, when that is worth a log line, why: always when it is exempt, and when it
    /// declares a name `callExemptApps` lists (which grants nothing to a client of the socket).
    func callExemption(of peer: ClientPeer, declaredName: String) -> (exempt: Bool, because: String?) {
        let runs = "\(peer.executable?.path ?? "an unknown program") as user \(peer.userID)"
        if let entry = callExemptClients.first(where: { matches($0, peer) }) {
            return (
                true,
                "exempt from A2 (may activate during a call): it runs \(runs), as callExemptApps entry \(entry) says"
            )
        }
        guard engine.config.callExemptApps.contains(declaredName) else { return (false, nil) }
        return (
            false,
            "not exempt from A2: callExemptApps names '\(declaredName)', but a client of the socket is exempt only by what it runs (an entry { executable: PATH }), and it runs \(runs)"
        )
    }

    private func matches(_ entry: CallExemptClient, _ peer: ClientPeer) -> Bool {
        guard entry.userID == nil || entry.userID == peer.userID, let running = peer.executable?.file else {
            return false
        }
        return fileIdentity(entry.executable) == running
    }

    /// After a reload: every client's session is decided again with the new entries.
    mutating func decideCallExemptionsAgain() {
        for (client, record) in clients.sorted(by: { $0.key < $1.key }) {
            guard let session = record.session else { continue }
            let name = name(of: session)
            let exemption = callExemption(of: record.peer, declaredName: name)
            guard exemption.exempt != record.isCallExempt else { continue }
            clients[client]?.isCallExempt = exemption.exempt
            run(.callExemptionDecided(session, exempt: exemption.exempt))
            effects.append(
                .log(
                    "\(name) (\(client)): \(exemption.because ?? "no longer exempt from A2: no callExemptApps entry names what it runs")"
                )
            )
        }
    }
}
