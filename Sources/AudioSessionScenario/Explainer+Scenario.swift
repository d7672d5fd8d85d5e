import AudioSessionPolicy

/// The explainer of a replay: sessions named as the scenario names them, events placed at their step.
extension Explainer {
    init(names: SessionNames, stepOfEvent: [EventNumber: Int]) {
        self.init(
            name: { names.name(of: $0) },
            when: { event in stepOfEvent[event].map { $0 == 0 ? " at setup" : " at step \($0)" } }
        )
    }

    /// A sent notification in the scenario file's words.
    func format(_ sent: SentNotification) -> String {
        "\(name(of: sent.session)) \(Self.text(of: sent.notification))"
    }
}
