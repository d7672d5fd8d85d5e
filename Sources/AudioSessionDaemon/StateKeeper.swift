import Foundation
import Logging

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

    init(directory: StateDirectory, settings: StateSettings, eventLogLimit: Int, logger: Logger) {
        self.directory = directory
        self.logger = logger
        self.settings = settings
        self.bootID = StateSettings.currentBootID
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
        if StateFiles.save(now, to: directory.file(StateSettings.fileName), logger: logger) {
            settings = now
        }
    }
}
