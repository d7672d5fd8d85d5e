import AudioSessionPolicy

/// One field of an `expect` that does not hold.
public struct Mismatch: Sendable {
    public var field: String
    public var expected: String
    public var actual: String
}

extension SessionExpectation {
    /// The fields that differ from the session as it is.
    public func mismatches(in snapshot: SessionSnapshot) -> [Mismatch] {
        var found: [Mismatch] = []
        func compare<Value: Equatable>(_ field: String, _ expected: Value?, _ actual: Value, _ text: (Value) -> String)
        {
            if let expected, expected != actual {
                found.append(Mismatch(field: field, expected: text(expected), actual: text(actual)))
            }
        }
        compare("state", state, snapshot.state, \.rawValue)
        compare("output", output, snapshot.output, \.rawValue)
        compare("input", input, snapshot.input, \.rawValue)
        compare("route", route, snapshot.route.output, portText)
        compare("inputRoute", inputRoute, snapshot.route.input, portText)
        compare("category", category, snapshot.category, \.rawValue)
        compare("mode", mode, snapshot.mode, \.rawValue)
        compare("options", options, snapshot.options) { "[" + $0.names.joined(separator: ", ") + "]" }
        compare("otherAudioPlaying", otherAudioPlaying, snapshot.isOtherAudioPlaying) { "\($0)" }
        compare("secondaryAudioHint", secondaryAudioHint, snapshot.secondaryAudioShouldBeSilencedHint) { "\($0)" }
        if let mediaPlayer, mediaPlayer != snapshot.mediaPlayer {
            found.append(
                Mismatch(
                    field: "mediaPlayer",
                    expected: mediaPlayer.rawValue,
                    actual: snapshot.mediaPlayer?.rawValue ?? "not a player"
                )
            )
        }
        return found
    }

    private func portText(_ port: Port?) -> String { port?.rawValue ?? "none" }
}

/// Section 7: the notifications since the previous `expect` must be exactly the expected ones, in order for
/// each session, in any order across sessions.
public enum NotificationMatcher {
    /// Nil when they match; otherwise what is wrong.
    public static func mismatch(expected: [ExpectedNotification], sent: [SentNotification], names: SessionNames) -> String? {
        var sentBySession: [String: [SessionNotification]] = [:]
        for notification in sent {
            sentBySession[names.name(of: notification.session), default: []].append(notification.notification)
        }
        var expectedBySession: [String: [ExpectedNotification.Kind]] = [:]
        for notification in expected { expectedBySession[notification.session, default: []].append(notification.kind) }
        for session in Set(sentBySession.keys).union(expectedBySession.keys).sorted() {
            let got = sentBySession[session] ?? []
            let want = expectedBySession[session] ?? []
            guard got.count == want.count else {
                return "\(session) was sent \(got.count), expected \(want.count)"
            }
            for (index, (kind, notification)) in zip(want, got).enumerated() where !matches(kind, notification) {
                return "\(session)'s notification \(index + 1) differs"
            }
        }
        return nil
    }

    private static func matches(_ kind: ExpectedNotification.Kind, _ notification: SessionNotification) -> Bool {
        switch (kind, notification) {
        case (.interruptionBegan, .interruptionBegan): true
        case (.interruptionEnded(let expected), .interruptionEnded(let actual)): expected.map { $0 == actual } ?? true
        case (.routeChange(let expected), .routeChange(let actual, _)): expected == actual
        case (.silenceSecondaryAudioHint(let expected), .silenceSecondaryAudioHint(let actual)): expected == actual
        case (.mediaServicesLost, .mediaServicesWereLost), (.mediaServicesReset, .mediaServicesWereReset): true
        default: false
        }
    }

    /// An expected notification in the same words as a sent one.
    public static func format(_ expected: ExpectedNotification) -> String {
        let text =
            switch expected.kind {
            case .interruptionBegan: "interruption began"
            case .interruptionEnded(let shouldResume):
                "interruption ended" + (shouldResume.map { " shouldResume=\($0)" } ?? "")
            case .routeChange(let reason): "routeChange \(reason.rawValue)"
            case .silenceSecondaryAudioHint(let begins): "silenceSecondaryAudioHint \(begins ? "begin" : "end")"
            case .mediaServicesLost: "mediaServices lost"
            case .mediaServicesReset: "mediaServices reset"
            }
        return "\(expected.session) \(text)"
    }
}
