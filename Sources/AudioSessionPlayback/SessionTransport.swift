import AudioSessionClient
import AudioSessionPolicy
import Dispatch
import Glibc
import Synchronization

/// The half of a player or recorder that obeys the session: it feeds `TransportRules` the app's play and
/// pause, the session's notifications and the daemon's verdicts, one at a time on a queue of its own, and
/// carries out the answers on the session (activate, report the stream) and on the pump (move samples, fade).
final class SessionTransport: Sendable {
    let session: AudioSession
    let direction: StreamDirection
    private let pump: any TransportPump
    /// Inputs are taken one at a time, in order, here; never in a verdict callback, which runs with the
    /// session's connection held (on whichever thread read the verdict) and must not wait for the session.
    private let queue = DispatchQueue(label: "audiosession.transport")
    private let control: Mutex<Control>
    private let listeners = Mutex<[AsyncStream<TransportEvent>.Continuation]>([])
    private let watcher = Mutex<Task<Void, Never>?>(nil)

    private struct Control {
        var rules: TransportRules
        /// The state the app sees: the rules' state once its actions are carried out (so that an app that sees
        /// `finished` finds the device closed and the stream gone).
        var visible: TransportRules.State = .stopped
        var stream: ReportedStream?
        /// The fade the last duck came with: unducking takes as long.
        var duckFadeMilliseconds = 200
    }

    init(session: AudioSession, direction: StreamDirection, controls: TransportRules.Controls, pump: any TransportPump)
    {
        self.session = session
        self.direction = direction
        self.pump = pump
        control = Mutex(Control(rules: TransportRules(controls: controls, appliesGain: false)))
        let notifications = session.notifications
        watcher.withLock {
            $0 = Task { [weak self] in
                for await notification in notifications {
                    guard let self else { return }
                    self.notice(notification)
                }
            }
        }
    }

    var state: TransportRules.State { control.withLock { $0.visible } }
    var gain: Double { control.withLock { $0.rules.gain } }

    /// Every event from now on; the sequence ends when the transport closes.
    var events: AsyncStream<TransportEvent> {
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        listeners.withLock { $0.append(continuation) }
        return stream
    }

    /// The app's own input (play, pause, stop): taken now, in order with everything else; a failed start is
    /// thrown to the caller.
    func handleNow(_ input: TransportRules.Input, because: String) throws {
        try queue.sync { try take(input, because: because) }
    }

    /// An input from the session or the pump: taken later, in order.
    func handleLater(_ input: TransportRules.Input, because: String) {
        queue.async { try? self.take(input, because: because) }
    }

    func close() {
        let first = watcher.withLock { watcher in
            defer { watcher = nil }
            watcher?.cancel()
            return watcher != nil
        }
        guard first else { return }
        queue.sync {
            let stream = control.withLock { control in
                defer { control.stream = nil }
                return control.stream
            }
            try? stream?.remove()
        }
        pump.close()
        waitUntilTheDaemonSeesNoRunningStream()
        let continuations = listeners.withLock { listeners in
            defer { listeners.removeAll() }
            return listeners
        }
        for continuation in continuations { continuation.finish() }
    }

    private func notice(_ notification: AudioSessionNotification) {
        switch notification {
        case .interruption(let interruption) where interruption.type == .began:
            handleLater(.interruptionBegan, because: interruption.because ?? "another session began")
        case .interruption(let interruption):
            let why = interruption.shouldResume ? "the interruption ended and it may resume" : "the interruption ended"
            handleLater(.interruptionEnded(shouldResume: interruption.shouldResume), because: why)
        case .routeChange(let change) where change.reason == .oldDeviceUnavailable:
            let gone = change.previousRoute.outputs.first?.portName ?? change.previousRoute.inputs.first?.portName
            handleLater(.oldDeviceUnavailable, because: "\(gone ?? "its device") went away")
        default:
            break
        }
    }

    private func verdict(_ update: StreamVerdictUpdate) {
        publish(.verdict(update))
        let milliseconds: Int
        switch update.verdict {
        case .ducked:
            milliseconds = update.fadeMilliseconds
            control.withLock { $0.duckFadeMilliseconds = update.fadeMilliseconds }
        case .audible, .capturing:
            milliseconds = control.withLock { $0.duckFadeMilliseconds }
        case .silent, .muted:
            // Short enough to be at once, long enough not to click.
            milliseconds = 10
        }
        handleLater(.verdict(gain: update.gain, fadeMilliseconds: milliseconds), because: update.verdict.rawValue)
    }

    /// Runs on the queue.
    private func take(_ input: TransportRules.Input, because: String) throws {
        let before = state
        let actions = control.withLock { $0.rules.handle(input) }
        for action in actions {
            do {
                try carryOut(action)
            } catch {
                publish(.failed("\(error)"))
                let more = control.withLock { $0.rules.handle(.startFailed) }
                for action in more { try? carryOut(action) }
                publishState(from: before, because: "could not start: \(error)")
                throw error
            }
        }
        publishState(from: before, because: because)
    }

    private func carryOut(_ action: TransportRules.Action) throws {
        switch action {
        case .start:
            // With no sound server the app applies the verdicts' gains itself; with one, the daemon sets the
            // volume of the stream the ALSA plugin opens on the server, and the samples stay as they are.
            try session.setActive(true)
            let applies = session.soundServerEnforces == false
            control.withLock { $0.rules.appliesGain = applies }
            let stream: ReportedStream
            if let known = control.withLock({ $0.stream }) {
                try known.resume()
                stream = known
            } else {
                stream = try session.startStream(direction: direction) { [weak self] update in
                    self?.verdict(update)
                }
                control.withLock { $0.stream = stream }
            }
            // The verdict the daemon gave as the stream started (before `startStream` returned) holds from the
            // first sample: a silenced or ducked start must not play a period at full gain first.
            if let current = stream.current {
                let actions = control.withLock { $0.rules.handle(.verdict(gain: current.gain, fadeMilliseconds: 0)) }
                for case .fadeGain(let gain, _) in actions {
                    pump.fade(to: gain, milliseconds: 0)
                    publish(.gain(gain))
                }
            }
            pump.run()
        case .pause:
            pump.halt()
            try? control.withLock { $0.stream }?.pause()
        case .stop:
            pump.stop()
            let stream = control.withLock { control in
                defer { control.stream = nil }
                return control.stream
            }
            try? stream?.remove()
            waitUntilTheDaemonSeesNoRunningStream()
        case .fadeGain(let gain, let milliseconds):
            pump.fade(to: gain, milliseconds: milliseconds)
            publish(.gain(gain))
        }
    }

    /// With a sound server, the daemon learns from the server that the device's stream left, a moment after the
    /// device closed. Waits (half a second at most) until it has, so that `setActive(false)` right after is not
    /// answered `isBusy` (D2) for a stream that is already gone.
    private func waitUntilTheDaemonSeesNoRunningStream() {
        guard session.soundServerEnforces == true else { return }
        let deadline = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < deadline {
            guard let state = session.currentState() else { return }
            if (direction == .output ? state.output.rawValue : state.input.rawValue) == "none" { return }
            usleep(20_000)
        }
    }

    private func publishState(from before: TransportRules.State, because: String) {
        let after = control.withLock { control in
            control.visible = control.rules.state
            return control.visible
        }
        if after != before { publish(.state(after, because: because)) }
    }

    func publish(_ event: TransportEvent) {
        for continuation in listeners.withLock({ $0 }) { continuation.yield(event) }
    }
}
