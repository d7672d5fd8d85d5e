import AudioSessionConfiguration
import AudioSessionPolicy
import YAMLBackend

/// The word that starts a step (`- activate: music`), as POLICY section 7 lists them.
enum StepKeyword: String, CaseIterable {
    case activate, deactivate, setCategory, play, pause, record, stopRecording, silentSwitch, screen
    case background, foreground, connect, disconnect, selectOutput, overrideOutput, mediaServices, wait, expect

    /// The keys a step may carry besides its keyword. Every action step may say which error it must fail with.
    var argumentKeys: [String] {
        switch self {
        case .deactivate: ["notifyOthers", "error"]
        case .setCategory: ["category", "mode", "options", "error"]
        case .overrideOutput: ["port", "error"]
        case .expect: []
        default: ["error"]
        }
    }

    /// An unaware app does not use the session API, so only what its streams and the user do can drive it.
    var drivesUnawareApps: Bool {
        [.play, .pause, .record, .stopRecording, .background, .foreground].contains(self)
    }
}

extension ScenarioReader {
    /// `steps:`, numbered from 1 in file order, `expect` steps included.
    func readSteps(_ node: YAMLNode) throws -> [Step] {
        let items = try yaml.sequence(node, "steps")
        guard !items.isEmpty else {
            throw yaml.error(at: node, "steps: the scenario has no steps; give at least one")
        }
        return try items.enumerated().map { index, item in try readStep(item, number: index + 1) }
    }

    private func readStep(_ node: YAMLNode, number: Int) throws -> Step {
        guard case .mapping(let written) = node, let first = written.first else {
            throw yaml.error(
                at: node,
                "step \(number): expected a step like '- activate: music', found \(node.kindForMessages)"
            )
        }
        let word = try yaml.string(first.key, "step \(number)")
        guard let keyword = StepKeyword(rawValue: word) else {
            let expected = StepKeyword.allCases.map(\.rawValue).joined(separator: ", ")
            throw yaml.error(at: first.key, "step \(number): unknown step '\(word)'; expected one of: \(expected)")
        }
        let step = try yaml.mapping(node, "step \(number) (\(word))")
        try checkArguments(of: step, keyword)
        return Step(
            number: number,
            location: yaml.location(of: node),
            action: try readAction(keyword, step, value: first.value),
            expectedError: try step.optional("error") { node, label in
                try yaml.choice(node, label, noun: "an error code", PolicyErrorCode.allCases)
            }
        )
    }

    private func checkArguments(of step: StrictMapping, _ keyword: StepKeyword) throws {
        let allowed = keyword.argumentKeys
        for entry in step.entries.dropFirst() where !allowed.contains(entry.key) {
            if StepKeyword(rawValue: entry.key) != nil {
                throw yaml.error(
                    at: entry.keyNode,
                    "\(step.label): '\(entry.key)' starts another step; give each step its own list item"
                        + " ('- \(entry.key): ...')"
                )
            }
            let expected =
                allowed.isEmpty
                ? "\(keyword) takes no other key" : "expected one of: \(allowed.joined(separator: ", "))"
            throw yaml.error(at: entry.keyNode, "unknown key '\(entry.key)' in \(step.label); \(expected)")
        }
    }

    private func readAction(_ keyword: StepKeyword, _ step: StrictMapping, value: YAMLNode) throws -> StepAction {
        let label = step.label
        func session() throws -> String { try declaredSession(value, label, drivenBy: keyword) }
        switch keyword {
        case .activate: return .activate(try session())
        case .deactivate:
            return .deactivate(try session(), notifyOthers: try step.optional("notifyOthers", yaml.bool) ?? false)
        case .setCategory:
            // No C4/C5 check here: an illegal setCategory is a request the engine must refuse with badParam (C6),
            // which a scenario checks with `error: badParam`.
            let session = try session()
            return .setCategory(
                session,
                try yaml.category(step.required("category"), step.label(of: "category")),
                mode: try step.optional("mode", yaml.mode) ?? .default,
                options: try step.optional("options", yaml.options)?.set ?? []
            )
        case .play: return .play(try session())
        case .pause: return .pause(try session())
        case .record: return .record(try session())
        case .stopRecording: return .stopRecording(try session())
        case .silentSwitch: return .silentSwitch(try yaml.silentSwitch(value, label))
        case .screen: return .screenLocked(try yaml.screenLocked(value, label))
        case .background: return .background(try session())
        case .foreground: return .foreground(try session())
        case .connect: return .connect(try yaml.port(value, label))
        case .disconnect: return .disconnect(try yaml.port(value, label))
        case .selectOutput: return .selectOutput(try selectedOutput(value, step))
        case .overrideOutput:
            let session = try session()
            let port = try yaml.choice(
                step.required("port"),
                step.label(of: "port"),
                noun: "a speaker override",
                [SpeakerOverride.speaker, .none]
            )
            return .overrideOutput(session, port)
        case .mediaServices:
            return try yaml.choice(
                value,
                label,
                noun: "a media services event",
                [("lost", StepAction.mediaServicesLost), ("reset", .mediaServicesReset)]
            )
        case .wait: return .wait(milliseconds: try yaml.duration(value, label))
        case .expect: return .expect(try readExpectation(value, label))
        }
    }

    /// The port of a `selectOutput` step: an output port, or any port when the step expects an error, since the
    /// engine must refuse a port that is not an available output with badParam (R3) and a scenario may check that.
    private func selectedOutput(_ node: YAMLNode, _ step: StrictMapping) throws -> Port {
        let port = try yaml.port(node, step.label)
        guard port.isOutput || step["error"] != nil else {
            let outputs = Port.allCases.filter(\.isOutput).map(\.rawValue).joined(separator: ", ")
            throw yaml.error(
                at: node,
                "\(step.label): '\(port.rawValue)' is not an output port; expected one of: \(outputs)"
                    + " (or add 'error: badParam' to check that the engine refuses it)"
            )
        }
        return port
    }

    /// A session named by a step or an expectation; `keyword` is the step that drives it, nil for an expectation.
    func declaredSession(_ node: YAMLNode, _ label: String, drivenBy keyword: StepKeyword?) throws -> String {
        let name = try yaml.string(node, label)
        guard let session = sessions.first(where: { $0.name == name }) else {
            let declared = sessions.map(\.name).joined(separator: ", ")
            throw yaml.error(at: node, "\(label): '\(name)' is not a declared session; declared: \(declared)")
        }
        if let keyword, session.isUnaware, !keyword.drivesUnawareApps {
            let drivers = StepKeyword.allCases.filter(\.drivesUnawareApps).map(\.rawValue).joined(separator: ", ")
            throw yaml.error(
                at: node,
                "\(label): '\(name)' is an unaware app (declared with stream:), which does not use the session API;"
                    + " only these steps drive it: \(drivers)"
            )
        }
        return name
    }
}
