import AudioSessionPlayback
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a player or recorder as it goes: one line per change of state, gain or verdict, and its position
/// (every second, or on one line that updates itself on a terminal), until it is done or a signal comes.
struct TransportProgress {
    /// Where it is: seconds, state, gain, device trouble.
    var position: () -> (seconds: Double, state: TransportRules.State, gain: Double, glitches: Int)
    var total: Double?
    var glitchWord: String
    /// The play/pause button: called for each line typed when standard input is a terminal.
    var playPause: (@Sendable () -> Void)?
    /// What `playing` is called: a recorder is `recording`.
    var runningWord = "playing"

    /// Waits until the transport is finished or stopped, or a SIGINT/SIGTERM arrives; prints as it goes. A
    /// transport paused for good (interrupted without resuming, or by its route) waits for the play button
    /// (`playPause`) or a signal. Returns the last state, and whether a signal ended it.
    func follow(
        _ events: AsyncStream<TransportEvent>,
        output: inout some TextOutputStream
    ) -> (state: TransportRules.State, interrupted: Bool) {
        let lines = Locked<[String]>([])
        let runningWord = runningWord
        let name: @Sendable (TransportRules.State) -> String = { $0 == .playing ? runningWord : $0.rawValue }
        let collector = Task {
            for await event in events {
                let line: String? =
                    switch event {
                    case .state(let state, let because): "\(name(state)): \(because)"
                    case .gain(let gain): "gain \(Self.format(gain)) (applied to the samples: no sound server)"
                    case .verdict(let update):
                        "verdict \(update.verdict.rawValue)\(update.verdict == .ducked ? " to \(Self.format(update.gain)) over \(update.fadeMilliseconds) ms" : "")\(update.currentRoute.outputs.first.map { " on \($0.portName)" } ?? update.currentRoute.inputs.first.map { " from \($0.portName)" } ?? "")"
                    case .failed(let why): "failed: \(why)"
                    }
                if let line { lines.withLock { $0.append(line) } }
            }
        }
        defer { collector.cancel() }
        // The position line rewrites itself only on a terminal (and not on TERM=dumb): TerminalStyle says.
        let style = TerminalStyle.of(output)
        let onTerminal = style.isTerminal
        if let playPause, isatty(STDIN_FILENO) == 1 {
            print("Enter pauses and plays; Ctrl-C stops.", to: &output)
            // A line read is a press of the button; the thread ends with the process.
            let reader = Thread {
                while readLine() != nil { playPause() }
            }
            reader.start()
        }
        var lastPrinted = -1.0
        return SignalTrap.catching([SIGINT, SIGTERM]) {
            while true {
                let now = position()
                for line in lines.withLock({ pending in
                    defer { pending.removeAll() }; return pending
                }) {
                    if onTerminal { print(style.rewriteLine, terminator: "", to: &output) }
                    print("[\(Self.clock(now.seconds))] \(line)", to: &output)
                }
                let progress =
                    "\(Self.clock(now.seconds))\(total.map { " / \(Self.clock($0))" } ?? "")  \(word(for: now.state))  gain \(Self.format(now.gain))  \(glitchWord) \(now.glitches)"
                if onTerminal {
                    print(style.rewriteLine + progress, terminator: "", to: &output)
                } else if now.seconds - lastPrinted >= 1 || now.state != .playing {
                    if now.seconds != lastPrinted { print(progress, to: &output) }
                    lastPrinted = now.seconds
                }
                // Watchers read the output as it comes (a log, a pipe): it is not left in stdio's buffer.
                fflush(nil)
                if SignalTrap.received != 0 {
                    if onTerminal { print("", to: &output) }
                    print("stopped by a signal at \(Self.clock(now.seconds))", to: &output)
                    fflush(nil)
                    return (now.state, true)
                }
                if now.state == .finished || now.state == .stopped { return (now.state, false) }
                usleep(100_000)
            }
        }
    }

    func word(for state: TransportRules.State) -> String {
        state == .playing ? runningWord : state.rawValue
    }

    static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded(.down))
        return String(format: "%02d:%02d.%d", tenths / 600, (tenths / 10) % 60, tenths % 10)
    }

    static func format(_ gain: Double) -> String { String(format: "%.2f", gain) }
}
