import AudioSessionPolicy
import AudioSessionScenario

/// The marks of a picture: the notifications a row lists, read back into kinds, and the device's changes.
extension TimelinePicture {
    /// The session and kind of a notification as a row lists it ("music interruption began: interrupted by phone
    /// (A6) at step 2"); nil for a line that names no session. The longest name that starts the line wins, so
    /// that "music 2" is not taken for "music".
    static func notification(_ text: String, names: [String]) -> (lane: Int, kind: MarkKind)? {
        guard
            let lane = names.indices.filter({ text.hasPrefix(names[$0] + " ") }).max(by: {
                names[$0].count < names[$1].count
            })
        else { return nil }
        let said = text.dropFirst(names[lane].count + 1)
        let kinds: [(SessionNotification, MarkKind)] = [
            (.interruptionBegan, .interruptionBegan),
            (.interruptionEnded(shouldResume: true), .interruptionEndedMayResume),
            (.interruptionEnded(shouldResume: false), .interruptionEndedNoResume),
            (.silenceSecondaryAudioHint(begins: true), .hintBegan),
            (.silenceSecondaryAudioHint(begins: false), .hintEnded),
            (.mediaServicesWereLost, .mediaServices),
            (.mediaServicesWereReset, .mediaServices),
        ]
        for (notification, kind) in kinds where said.hasPrefix(Explainer.text(of: notification)) {
            return (lane, kind)
        }
        let anyRouteChange = Explainer.text(of: .routeChange(.override, previous: Route(output: nil, input: nil)))
        if let word = anyRouteChange.split(separator: " ").first, said.hasPrefix(word + " ") {
            return (lane, .routeChange)
        }
        return nil
    }

    /// The silent switch and the screen lock as they stand after each step, from the scenario's `device:` and its
    /// steps, and the steps that connect, disconnect or pick ports or touch the sound server.
    static func deviceRows(_ result: ScenarioResult) -> [DeviceRow] {
        var silent = result.scenario.device.silentSwitch == .silent
        var locked = result.scenario.device.screenLocked
        var switchRow = DeviceRow(
            name: "switch",
            whenOn: "silent",
            whenOff: "ring",
            band: .silentSwitch,
            on: [],
            marks: []
        )
        var lockRow = DeviceRow(
            name: "screen",
            whenOn: "locked",
            whenOff: "unlocked",
            band: .screenLocked,
            on: [],
            marks: []
        )
        var portRow = DeviceRow(name: "ports", whenOn: "", whenOff: "", band: nil, on: [], marks: [])
        for (column, row) in result.timeline.enumerated() {
            let step = "step \(row.step.number): "
            switch row.step.action {
            case .silentSwitch(let position):
                silent = position == .silent
                switchRow.marks.append(Mark(column: column, kind: .switchMoved, text: step + "switch to \(position)"))
            case .screenLocked(let isLocked):
                locked = isLocked
                let text = step + (isLocked ? "screen locked" : "screen unlocked")
                lockRow.marks.append(Mark(column: column, kind: .lockChanged, text: text))
            case .connect(let port):
                portRow.marks.append(Mark(column: column, kind: .portConnected, text: step + "\(port) connected"))
            case .disconnect(let port):
                portRow.marks.append(
                    Mark(column: column, kind: .portDisconnected, text: step + "\(port) disconnected")
                )
            case .selectOutput(let port):
                portRow.marks.append(
                    Mark(column: column, kind: .outputSelected, text: step + "\(port) selected by the user")
                )
            case .mediaServicesLost:
                portRow.marks.append(Mark(column: column, kind: .mediaServices, text: step + "sound server lost"))
            case .mediaServicesReset:
                portRow.marks.append(Mark(column: column, kind: .mediaServices, text: step + "sound server reset"))
            default:
                break
            }
            switchRow.on.append(silent)
            lockRow.on.append(locked)
            portRow.on.append(false)
        }
        return [switchRow, lockRow, portRow]
    }
}
