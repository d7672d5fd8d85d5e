import AudioSessionPolicy
import AudioSessionScenario

/// A replay as a picture, in values: one column per step, one lane per session, a strip for the device, and on
/// every shape the words shown on hover. It is built from the rows `--timeline` prints, so the picture and the
/// table always say the same thing; nothing here asks the policy anything.
struct TimelinePicture: Equatable, Sendable {
    var title: String
    /// The device and the outcome, in one line.
    var subtitle: String
    var passed: Bool
    var columns: [Column]
    var lanes: [Lane]
    /// The silent switch, the screen lock and the ports: rows above the lanes.
    var deviceRows: [DeviceRow]

    /// One step of the scenario.
    struct Column: Equatable, Sendable {
        var number: Int
        /// "activate phone", "switch silent", "expect".
        var label: String
        /// An `expect` step: it checks and changes nothing, so it is drawn narrow.
        var isCheck: Bool
        /// Why the step failed; empty when it did what the file says.
        var failures: [String]
        /// The error the engine answered the step with, if any: its code ("isBusy") and in full.
        var errorCode: String?
        var error: String?

        var failed: Bool { !failures.isEmpty }
    }

    /// One session over the whole replay.
    struct Lane: Equatable, Sendable {
        var name: String
        /// "playback", "playAndRecord/voiceChat call", "playAndRecord unaware".
        var kind: String
        /// One per column; nil where the session does not exist (its creation failed).
        var cells: [Cell?]
        var marks: [Mark]
    }

    /// A session as it stood after one step.
    struct Cell: Equatable, Sendable {
        var state: SessionState
        var output: OutputSummary
        var input: InputSummary
        /// The output port, or the input port for a session with no output; nil when it has neither.
        var route: String?
        /// The secondary-audio hint: another app's nonmixable audio plays, so game sounds should be quiet.
        var hint: Bool
        /// Why it is so, one sentence per line ("music is interrupted: interrupted by phone (A6) at step 2").
        var reasons: [String]

        /// "interrupted, silent, route headphones".
        var summary: String {
            var parts = [state.rawValue, output == .none ? "no output" : output.rawValue]
            if input != .none { parts.append("input \(input.rawValue)") }
            parts.append(route.map { "route \($0)" } ?? "no route")
            if hint { parts.append("secondary audio hint on") }
            return parts.joined(separator: ", ")
        }
    }

    /// Something that happened at one step: a notification to a session, or a change to the device.
    struct Mark: Equatable, Sendable {
        var column: Int
        var kind: MarkKind
        /// What happened and why, shown on hover.
        var text: String
    }

    enum MarkKind: String, CaseIterable, Equatable, Sendable {
        case interruptionBegan, interruptionEndedMayResume, interruptionEndedNoResume, routeChange
        case hintBegan, hintEnded, mediaServices
        case switchMoved, lockChanged, portConnected, portDisconnected, outputSelected
    }

    /// A row of the device strip: a condition that holds or not at each step (the switch on silent, the screen
    /// locked), and the steps that touched it.
    struct DeviceRow: Equatable, Sendable {
        var name: String
        /// What the row means when it holds ("silent") and when not ("ring"); empty for a row of marks only.
        var whenOn: String
        var whenOff: String
        /// How the row draws the steps where it holds; nil for a row of marks only.
        var band: TimelineStyle.Band?
        /// One per column.
        var on: [Bool]
        var marks: [Mark]
    }
}

extension TimelinePicture {
    /// The picture of a replay's rows.
    init(_ result: ScenarioResult) {
        let names = result.names.names
        let explainer = result.explainer
        var columns: [Column] = []
        var cells = [[Cell?]](repeating: [], count: names.count)
        var marks = [[Mark]](repeating: [], count: names.count)
        var kinds = [String](repeating: "", count: names.count)
        for (index, row) in result.timeline.enumerated() {
            columns.append(
                Column(
                    number: row.step.number,
                    label: Self.label(of: row.step.action),
                    isCheck: { if case .expect = row.step.action { true } else { false } }(),
                    failures: result.failures.filter { $0.step?.number == row.step.number }.map(\.description),
                    errorCode: row.error?.code.rawValue,
                    error: row.error.map { "\($0)" }
                )
            )
            var byLane = [Cell?](repeating: nil, count: names.count)
            for snapshot in row.sessions where names.indices.contains(snapshot.id.rawValue) {
                let lane = snapshot.id.rawValue
                byLane[lane] = Cell(
                    state: snapshot.state,
                    output: snapshot.output,
                    input: snapshot.input,
                    route: (snapshot.route.output ?? snapshot.route.input)?.rawValue,
                    hint: snapshot.secondaryAudioShouldBeSilencedHint,
                    reasons: row.explanations[snapshot.id] ?? explainer.explain(snapshot)
                )
                kinds[lane] = Self.kind(of: snapshot)
            }
            for lane in names.indices { cells[lane].append(byLane[lane]) }
            for text in row.notifications {
                guard let (lane, kind) = Self.notification(text, names: names) else { continue }
                marks[lane].append(Mark(column: index, kind: kind, text: "step \(row.step.number): \(text)"))
            }
        }
        self.title = result.scenario.name
        self.passed = result.passed
        self.columns = columns
        self.lanes = names.indices.map { Lane(name: names[$0], kind: kinds[$0], cells: cells[$0], marks: marks[$0]) }
        self.deviceRows = Self.deviceRows(result)
        let device = result.scenario.device
        let outcome =
            result.passed
            ? "passed" : "FAILED (\(result.failures.count) failure\(result.failures.count == 1 ? "" : "s"))"
        self.subtitle =
            "outputs: \(device.outputs.map(\.rawValue).joined(separator: ", ")); "
            + "\(columns.count) steps, \(names.count) sessions; \(outcome)"
    }

    /// "playback", "playAndRecord/voiceChat call", "playAndRecord unaware".
    static func kind(of snapshot: SessionSnapshot) -> String {
        var text = snapshot.category.rawValue
        if snapshot.mode != .default { text += "/\(snapshot.mode.rawValue)" }
        if snapshot.isCall { text += " call" }
        if snapshot.isUnaware { text += " unaware" }
        return text
    }

    /// A step in a few words, as the column's label.
    static func label(of action: StepAction) -> String {
        switch action {
        case .activate(let name), .play(let name), .pause(let name), .record(let name), .stopRecording(let name),
            .background(let name), .foreground(let name):
            "\(action.keyword) \(name)"
        case .deactivate(let name, let notifyOthers): "deactivate \(name)\(notifyOthers ? " +notify" : "")"
        case .setCategory(let name, let category, _, _): "setCategory \(name) \(category.rawValue)"
        case .silentSwitch(let position): "switch \(position.rawValue)"
        case .screenLocked(let locked): locked ? "lock screen" : "unlock screen"
        case .connect(let port), .disconnect(let port), .selectOutput(let port): "\(action.keyword) \(port.rawValue)"
        case .overrideOutput(let name, let override): "override \(name) \(override.rawValue)"
        case .mediaServicesLost: "media lost"
        case .mediaServicesReset: "media reset"
        case .wait(let milliseconds): "wait \(milliseconds)ms"
        case .expect: "expect"
        }
    }
}
