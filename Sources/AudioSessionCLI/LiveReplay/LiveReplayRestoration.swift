import AudioSessionPolicy
import AudioSessionProtocol
import Foundation

/// What a live replay changes in the daemon for everyone, as it found them: the silent switch, the screen lock
/// and the user's output selection. The replay puts them back when it ends, passed, failed or interrupted; its
/// sessions end with their connections.
struct LiveReplayFound: Equatable, Sendable {
    var silentSwitch: SilentSwitch
    var screenLocked: Bool
    var selectedOutput: AudioSessionPolicy.Port?

    init(_ status: StatusBody) {
        silentSwitch = status.silentSwitch
        screenLocked = status.screenLocked
        selectedOutput = status.selectedOutput
    }

    /// `silent switch silent, screen unlocked, speaker selected`.
    var description: String {
        "silent switch \(silentSwitch.rawValue), screen \(screenLocked ? "locked" : "unlocked"), "
            + (selectedOutput.map { "\($0.rawValue) selected" } ?? "no output selected")
    }
}

extension LiveWorld {
    /// Sets the switch, the lock and the output selection back as they were found; what could not be put back,
    /// in words (nothing when all was). Synchronous and without `Task.sleep`, so that it still runs to its end
    /// in a replay cancelled by a signal.
    func putBack(_ found: LiveReplayFound) -> [String] {
        var problems: [String] = []
        do {
            _ = try control.result(Request(.setSilentSwitch(found.silentSwitch)))
        } catch {
            problems.append("cannot set the silent switch back to \(found.silentSwitch.rawValue): \(error)")
        }
        do {
            _ = try control.result(Request(.setScreenLock(locked: found.screenLocked)))
        } catch {
            problems.append("cannot \(found.screenLocked ? "lock" : "unlock") the screen again: \(error)")
        }
        if let problem = putBackSelection(found.selectedOutput) { problems.append(problem) }
        return problems
    }

    /// Selects `wanted` again, or clears a selection the replay left; a moment's retries, since a PipeWire
    /// session manager moves the default sink a little after it is asked to, which the daemon takes for a pick.
    private func putBackSelection(_ wanted: AudioSessionPolicy.Port?) -> String? {
        let deadline = ContinuousClock.now + .seconds(3)
        while true {
            let status: StatusBody
            do {
                status = try control.status()
            } catch {
                return "cannot read the daemon's status to put the output selection back: \(error)"
            }
            if status.selectedOutput == wanted { return nil }
            if let wanted, !status.outputs.contains(wanted) {
                return "\(wanted.rawValue) was selected, but is no longer an available output"
            }
            if ContinuousClock.now >= deadline {
                return "the output selection stays \(status.selectedOutput?.rawValue ?? "none"), "
                    + "not \(wanted?.rawValue ?? "none") as before the replay"
            }
            if let wanted {
                _ = try? control.call(Request(.selectOutput(port: wanted.rawValue)))
            } else if let port = Self.portThatClearsTheSelection(status) {
                _ = try? control.call(Request(.connectPort(port: port.rawValue)))
            } else {
                return "the output selection stays \(status.selectedOutput?.rawValue ?? "none"): no port can clear it"
            }
            usleep(20_000)
        }
    }

    /// A port that is already the most recent in each list it belongs to: connecting it again clears the
    /// selection (R2) and changes no order.
    static func portThatClearsTheSelection(_ status: StatusBody) -> AudioSessionPolicy.Port? {
        let lists = LivePorts.Lists(outputs: status.outputs, inputs: status.inputs)
        return [status.outputs.last, status.inputs.last].compactMap { $0 }.first { port in
            var after = lists
            after.connect(port)
            return after == lists
        }
    }
}
