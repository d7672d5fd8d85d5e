import AlsaBackend
import AudioSessionConfiguration
import AudioSessionDaemonCore
import FoundationEssentials
import Logging
import ServiceLifecycle
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The ALSA mixer control of a daemon with no sound server: sets the system volume on it, holds it muted for the
/// silent switch, and tells the policy when someone else (alsamixer, a volume key daemon) changes it. The user's
/// own values are kept apart (`MixerLedger`); a journal in the state directory says what the daemon holds, so
/// that a daemon that died holding the control gives it back when it starts again. On shutdown it gives back.
///
/// libasound's mixer handle is not thread-safe: one thread of this service owns it and does everything on it.
final class AlsaMixerService: Service, MixerEnforcer, AlsaThreadService {
    private let control: MixerControlName
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let logger: Logger
    private let journalPath: String?
    private let commands = Locked<[Command]>([])
    let stopping = Atomic<Bool>(false)
    /// How long the mixer thread waits for a change before it looks at its commands again: the most a switch
    /// change waits before the control is muted.
    static let pollMilliseconds = 20

    /// The journal's name in the state directory.
    static let journalFileName = "mixer.json"

    private enum Command: Sendable {
        case setVolume(Double)
        case hold(Bool)
    }

    init(control: MixerControlName, inputs: AsyncStream<DaemonInput>.Continuation, logger: Logger, journalPath: String?)
    {
        self.control = control
        self.inputs = inputs
        self.logger = logger
        self.journalPath = journalPath
    }

    func setVolume(_ volume: Double) { commands.withLock { $0.append(.setVolume(volume)) } }
    func holdMuted(_ held: Bool) { commands.withLock { $0.append(.hold(held)) } }

    func run() async {
        await runOnThread(named: "audiosessiond-mixer") { [self] in serve() }
    }

    /// The mixer thread: open (retrying while the card is missing), then serve until told to stop.
    private func serve() {
        var reported = false
        while !stopping.load(ordering: .relaxed) {
            do {
                let mixer = try AlsaMixer(card: control.card, control: control.control)
                // Opened: a later loss is reported again, and orders given to a control that went away are
                // void (the policy decides anew once it hears the control's volume).
                reported = false
                commands.withLock { $0.removeAll() }
                try serve(mixer)
                return
            } catch {
                if !reported {
                    logger.warning(
                        "mixer \(control): \(error); the silent switch and system volume reach only apps of the client library until it can be opened (retrying)"
                    )
                    inputs.yield(.sound(.mixerGone(reason: "\(error)")))
                    reported = true
                }
                pauseBeforeRetrying()
            }
        }
    }

    private func serve(_ mixer: AlsaMixer) throws {
        try giveBackWhatAnEarlierDaemonHeld(mixer)
        var ledger = MixerLedger(hasSwitch: mixer.hasSwitch, reading: try read(mixer))
        logger.info(
            "mixer \(control): opened, volume \(Int(ledger.user.volume * 100))%\(ledger.user.muted ? ", muted by the user" : "")\(mixer.hasSwitch ? "" : ", no switch: held at volume 0 for the silent switch")"
        )
        inputs.yield(.sound(.mixerVolume(ledger.user.volume)))
        defer { giveBack(mixer, &ledger) }
        while !stopping.load(ordering: .relaxed) {
            let pending = commands.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
            // A change the user made whose event has not been waited for yet is taken in first, so a hold starts
            // from what the user set last (an unmute just before the switch goes silent is the user's).
            if !pending.isEmpty { try take(try read(mixer), into: &ledger) }
            for command in pending {
                let previous = ledger.lastSeen
                let target: MixerLedger.Reading?
                switch command {
                case .setVolume(let volume): target = ledger.setVolume(volume)
                case .hold(let held): target = ledger.hold(held)
                }
                // The journal first: a daemon that dies between the two leaves a journal for a control it did not
                // change, which the next start recognises (the control does not show what the journal says).
                if ledger.held { writeJournal(ledger) }
                if let target {
                    try write(target, over: previous, to: mixer)
                    ledger.wrote(try read(mixer))
                    // What the control shows now, read back (a control has whole steps), for the next start.
                    if ledger.held { writeJournal(ledger) }
                }
                if !ledger.held { removeJournal() }
            }
            guard try mixer.waitForChange(timeoutMilliseconds: Self.pollMilliseconds) else { continue }
            try take(try read(mixer), into: &ledger)
        }
    }

    /// What the control shows now: a change the daemon did not make is the user's.
    private func take(_ reading: MixerLedger.Reading, into ledger: inout MixerLedger) throws {
        switch ledger.observe(reading) {
        case .unchanged: break
        case .changedByUser(let volumeChanged, let holdEnded):
            if holdEnded {
                inputs.yield(.sound(.mixerReleasedByUser))
                logger.notice(
                    "mixer \(control): unmuted outside the daemon while held for the silent switch; the user's wish stands"
                )
                removeJournal()
            } else if ledger.held {
                writeJournal(ledger)
            }
            if volumeChanged { inputs.yield(.sound(.mixerVolume(ledger.user.volume))) }
        }
    }

    private func read(_ mixer: AlsaMixer) throws -> MixerLedger.Reading {
        MixerLedger.Reading(muted: mixer.hasSwitch ? try mixer.isMuted() : false, volume: try mixer.volume())
    }

    /// Writes only what changed: the volume is written as one value for every channel, so leaving it alone
    /// when only the switch changes keeps the user's balance between channels.
    private func write(_ reading: MixerLedger.Reading, over previous: MixerLedger.Reading?, to mixer: AlsaMixer) throws
    {
        if mixer.hasSwitch && reading.muted != previous?.muted { try mixer.setMuted(reading.muted) }
        if let previous, MixerLedger.Reading.isClose(reading.volume, previous.volume) { return }
        try mixer.setVolume(reading.volume)
    }

    /// The user's values back on the control (shutdown, or the control going away).
    private func giveBack(_ mixer: AlsaMixer, _ ledger: inout MixerLedger) {
        guard ledger.held else { return removeJournal() }
        let previous = ledger.lastSeen
        if let target = ledger.hold(false) {
            do {
                try write(target, over: previous, to: mixer)
                logger.info("mixer \(control): given back to the user's values")
            } catch {
                logger.error("mixer \(control): cannot give back: \(error); the journal keeps it for the next start")
                return
            }
        }
        removeJournal()
    }

    // MARK: The journal: what the daemon holds, for the next start after a crash

    private struct Journal: Codable {
        var card: String
        var control: String
        var ledger: MixerLedger
    }

    private func writeJournal(_ ledger: MixerLedger) {
        guard let journalPath else { return }
        StateFiles.save(
            Journal(card: control.card, control: control.control, ledger: ledger),
            to: journalPath,
            logger: logger
        )
    }

    private func removeJournal() {
        guard let journalPath else { return }
        StateFiles.remove(journalPath)
    }

    /// A journal left by a daemon that died holding the control: the user's values go back on it, unless the
    /// control no longer shows what the daemon held (someone changed it since: that is the user's now).
    private func giveBackWhatAnEarlierDaemonHeld(_ mixer: AlsaMixer) throws {
        guard let journalPath, let journal = StateFiles.load(Journal.self, from: journalPath, logger: logger) else {
            return
        }
        guard journal.card == control.card, journal.control == control.control else {
            // The configuration names another control now: that one is not ours to touch, and the journal stays
            // for a daemon configured for it again.
            logger.warning(
                "mixer \(control): a journal says an earlier daemon held '\(journal.control)' on \(journal.card) muted; that control is not configured now and is left as it is"
            )
            return
        }
        let reading = try read(mixer)
        guard reading.isClose(to: journal.ledger.lastSeen) else {
            logger.notice("mixer \(control): an earlier daemon held it, but it has changed since; left as it is")
            removeJournal()
            return
        }
        // Removed only once the user's values are back: if writing fails, the next attempt still knows.
        try write(journal.ledger.user, over: reading, to: mixer)
        removeJournal()
        logger.notice("mixer \(control): an earlier daemon stopped while holding it muted; the user's values are back")
    }
}
