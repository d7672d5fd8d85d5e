import AudioSessionConfiguration
import AudioSessionPolicy
import YAMLBackend

extension ScenarioReader {
    static let expectKeys = ["sessions", "notifications"]
    static let sessionExpectationKeys = [
        "state", "output", "input", "route", "inputRoute", "category", "mode", "options", "otherAudioPlaying",
        "secondaryAudioHint", "mediaPlayer",
    ]
    /// A notification names its session and exactly one of these.
    static let notificationKinds = ["interruption", "routeChange", "silenceSecondaryAudioHint", "mediaServices"]

    /// An `expect:` step's value. An expectation that checks nothing is surely a mistake, so it is an error.
    func readExpectation(_ node: YAMLNode, _ label: String) throws -> Expectation {
        let mapping = try yaml.mapping(
            node.isNull ? .emptyMapping(at: node.mark) : node,
            label,
            allowedKeys: Self.expectKeys
        )
        guard !mapping.isEmpty else {
            throw yaml.error(at: node, "\(label): the expectation checks nothing; give sessions: or notifications:")
        }
        var expectation = Expectation()
        if let sessions = mapping["sessions"] {
            let perSession = try yaml.mapping(sessions, mapping.label(of: "sessions"))
            expectation.sessions = try perSession.entries.map { try readSessionExpectation($0, label) }
        }
        if let notifications = mapping["notifications"] {
            expectation.notifications = try yaml.sequence(notifications, mapping.label(of: "notifications"))
                .enumerated().map { index, item in
                    try readNotification(item, "\(label), notification \(index + 1)")
                }
        }
        return expectation
    }

    private func readSessionExpectation(_ entry: StrictMapping.Entry, _ stepLabel: String) throws -> SessionExpectation
    {
        let session = try declaredSession(entry.keyNode, "\(stepLabel): sessions", drivenBy: nil)
        let fields = try yaml.mapping(
            entry.value,
            "\(stepLabel), session '\(session)'",
            allowedKeys: Self.sessionExpectationKeys
        )
        guard !fields.isEmpty else {
            let keys = Self.sessionExpectationKeys.joined(separator: ", ")
            throw yaml.error(at: entry.value, "\(fields.label): checks nothing; give at least one of: \(keys)")
        }
        var expected = SessionExpectation(session: session, location: yaml.location(of: entry.keyNode))
        expected.state = try fields.optional("state") {
            try yaml.choice($0, $1, noun: "a session state", SessionState.allCases)
        }
        expected.output = try fields.optional("output") {
            try yaml.choice($0, $1, noun: "an output", OutputSummary.allCases)
        }
        expected.input = try fields.optional("input") {
            try yaml.choice($0, $1, noun: "an input", InputSummary.allCases)
        }
        expected.route = try fields.optional("route") { try route($0, $1, direction: .output) }
        expected.inputRoute = try fields.optional("inputRoute") { try route($0, $1, direction: .input) }
        expected.category = try fields.optional("category", yaml.category)
        expected.mode = try fields.optional("mode", yaml.mode)
        expected.options = try fields.optional("options", yaml.options)?.set
        expected.otherAudioPlaying = try fields.optional("otherAudioPlaying", yaml.bool)
        expected.secondaryAudioHint = try fields.optional("secondaryAudioHint", yaml.bool)
        if let entry = fields.entries.first(where: { $0.key == "mediaPlayer" }) {
            guard sessions.first(where: { $0.name == session })?.isMediaPlayer == true else {
                throw yaml.error(
                    at: entry.keyNode,
                    "\(fields.label): 'mediaPlayer' is checked only for a player; declare '\(session)' with"
                        + " 'stream:' and 'mediaPlayer: true'"
                )
            }
            expected.mediaPlayer = try yaml.choice(
                entry.value,
                fields.label(of: "mediaPlayer"),
                noun: "a player state",
                MediaPlayerState.allCases
            )
        }
        return expected
    }

    /// A port in `direction`, or `none` (the session has no route that way): `.some(nil)`.
    private func route(_ node: YAMLNode, _ label: String, direction: StreamDirection) throws -> Port? {
        let ports = Port.allCases.filter { direction == .output ? $0.isOutput : $0.isInput }
        let noun = direction == .output ? "an output route" : "an input route"
        return try yaml.choice(node, label, noun: noun, ports.map { ($0.rawValue, Optional($0)) } + [("none", nil)])
    }

    private func readNotification(_ node: YAMLNode, _ label: String) throws -> ExpectedNotification {
        let mapping = try yaml.mapping(node, label, allowedKeys: ["session", "shouldResume"] + Self.notificationKinds)
        let session = try declaredSession(mapping.required("session"), mapping.label(of: "session"), drivenBy: nil)
        let kinds = mapping.entries.filter { Self.notificationKinds.contains($0.key) }
        guard let written = kinds.first else {
            let expected = Self.notificationKinds.joined(separator: ", ")
            throw yaml.error(at: node, "\(label): says nothing of what was sent; give one of: \(expected)")
        }
        if kinds.count > 1 {
            throw yaml.error(
                at: kinds[1].keyNode,
                "\(label): '\(kinds[1].key)' cannot go with '\(written.key)'; give each notification its own list item"
            )
        }
        var kind = try notificationKind(written, mapping.label(of: written.key))
        if let resume = mapping.entries.first(where: { $0.key == "shouldResume" }) {
            guard case .interruptionEnded = kind else {
                throw yaml.error(at: resume.keyNode, "\(label): shouldResume goes only with 'interruption: ended'")
            }
            kind = .interruptionEnded(shouldResume: try yaml.bool(resume.value, mapping.label(of: "shouldResume")))
        }
        return ExpectedNotification(session: session, kind: kind, location: yaml.location(of: node))
    }

    /// What a notification entry says was sent; an `ended` without `shouldResume` matches either value.
    private func notificationKind(_ entry: StrictMapping.Entry, _ label: String) throws -> ExpectedNotification.Kind {
        typealias Kind = ExpectedNotification.Kind
        let value = entry.value
        switch entry.key {
        case "interruption":
            return try yaml.choice(
                value,
                label,
                noun: "an interruption event",
                [("began", Kind.interruptionBegan), ("ended", .interruptionEnded(shouldResume: nil))]
            )
        case "routeChange":
            return .routeChange(
                try yaml.choice(value, label, noun: "a route change reason", RouteChangeReason.allCases)
            )
        case "silenceSecondaryAudioHint":
            return try yaml.choice(
                value,
                label,
                noun: "a hint event",
                [
                    ("begin", Kind.silenceSecondaryAudioHint(begins: true)),
                    ("end", .silenceSecondaryAudioHint(begins: false)),
                ]
            )
        default:
            return try yaml.choice(
                value,
                label,
                noun: "a media services event",
                [("lost", Kind.mediaServicesLost), ("reset", .mediaServicesReset)]
            )
        }
    }
}
