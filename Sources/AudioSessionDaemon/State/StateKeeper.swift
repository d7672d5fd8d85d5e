import AudioSessionDaemonCore
import AudioSessionEventLog
import AudioSessionPolicy
import AudioSessionProtocol
import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// What the policy loop keeps in the state directory after each input: the user's settings when they changed
/// (`settings.json`, written atomically), and the engine events it handled (the event log).
struct StateKeeper: Sendable {
    let directory: StateDirectory
    let logger: Logger
    private(set) var settings: StateSettings
    private var eventLog: JournalEventLog?
    private let bootID: String?
    /// When each pending engine timer was started, for checkpoints.
    private var timerStarts: [Int: Double] = [:]
    /// Failed writes of `settings.json` (a full disk), logged once and counted.
    private var settingsTrouble: StateWriteTrouble

    init(directory: StateDirectory, settings: StateSettings, eventLogLimit: Int, logger: Logger) {
        self.directory = directory
        self.logger = logger
        self.settings = settings
        self.bootID = StateSettings.currentBootID
        self.settingsTrouble = StateWriteTrouble("settings \(directory.file(StateSettings.fileName))")
        self.eventLog =
            eventLogLimit > 0 ? JournalEventLog.open(in: directory, limit: eventLogLimit, logger: logger) : nil
    }

    /// Before the first input: the event log starts a run (a new engine) and records from now on.
    mutating func begin(_ core: inout DaemonCore, now: Date = Date()) {
        guard eventLog != nil else { return }
        core.recorder.isOn = true
        var start = core.recorder.checkpoint(.start, engine: core.engine)
        start.time = now.timeIntervalSince1970
        _ = eventLog?.append([start])
    }

    /// After each input.
    mutating func after(_ core: inout DaemonCore, now: Date = Date()) {
        saveSettings(core)
        guard eventLog != nil else { return }
        let time = now.timeIntervalSince1970
        var records = core.recorder.take()
        for index in records.indices {
            records[index].time = time
            for timer in records[index].timersStarted ?? [] { timerStarts[timer.timer] = time }
        }
        if eventLog?.append(records) == true {
            var checkpoint = core.recorder.checkpoint(.checkpoint, engine: core.engine)
            checkpoint.time = time
            timerStarts = timerStarts.filter { id, _ in checkpoint.timers?.contains { $0.timer == id } ?? false }
            checkpoint.timers = checkpoint.timers?.map {
                JournalTimer(timer: $0.timer, milliseconds: $0.milliseconds, startedAt: timerStarts[$0.timer])
            }
            eventLog?.rotate(startingWith: checkpoint)
        }
    }

    mutating func finish() { eventLog?.close() }

    private mutating func saveSettings(_ core: DaemonCore) {
        var now = settings
        now.silentSwitch = core.engine.silentSwitchPosition
        now.screenLocked = core.engine.isScreenLocked
        now.bootID = bootID
        now.selectedOutput = core.outputMemory.selection
        guard now != settings else { return }
        _ = write(now)
    }

    private mutating func write(_ new: StateSettings) -> StateFiles.WriteError? {
        do {
            try StateFiles.writeJSON(new, to: directory.file(StateSettings.fileName), logger: logger)
        } catch {
            settingsTrouble.failed(
                error,
                logger: logger,
                consequence: "the settings are not kept for the next start, and requests that change one are refused"
            )
            return error
        }
        settingsTrouble.succeeded(logger: logger)
        settings = new
        return nil
    }

    /// Before a request that needs the state directory (`StateNeed`): the write it needs is made now, ahead
    /// of the request, or space for it is found. The failure, if any, is what the request is refused with
    /// (`stateUnavailable`), before it changes anything.
    ///
    /// - A setting (the switch, the screen lock, the selected output) is written ahead with its new value; if
    ///   the engine then refuses the request, `after` writes the settings back as they are.
    /// - A request that may have the policy silence, duck or move streams needs their journal entries written
    ///   first, by the sound-server connection, later in the turn: room for the journal as it is now and a
    ///   page more is looked for (`StateFiles.probeSpace`).
    mutating func prepare(_ request: Request, core: DaemonCore) -> StateFiles.WriteError? {
        switch StateNeed(request) {
        case nil:
            return nil
        case .setting:
            var new = settings
            new.bootID = bootID
            switch request.command {
            case .setSilentSwitch(let position): new.silentSwitch = position
            case .setScreenLock(let locked): new.screenLocked = locked
            case .selectOutput(let port): new.selectedOutput = AudioSessionPolicy.Port(rawValue: port)
            default: return nil
            }
            guard new != settings else { return nil }
            return write(new)
        case .streamJournal:
            guard core.soundServer else { return nil }
            let journal = directory.file(JournalStreams.fileName)
            var info = stat()
            let size = lstat(journal, &info) == 0 ? Int(info.st_size) : 0
            guard var error = StateFiles.probeSpace(in: directory.path, bytes: size + 4096) else { return nil }
            error.description = "no room for the stream journal \(journal) (\(size + 4096) bytes): \(error)"
            return error
        }
    }
}
