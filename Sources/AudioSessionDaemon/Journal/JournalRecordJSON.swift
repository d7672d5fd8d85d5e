import AudioSessionEventLog

/// An event record's line in the event log, byte for byte what `JSONEncoder` with `.sortedKeys` writes of it
/// (`JournalRecordJSONTests` holds the two together). Every event the daemon handles appends one, after its
/// orders are out; the encoder's generic machinery was about a tenth of the daemon's CPU time under load
/// (docs/BENCHMARKS.md). The rare records stay with the encoder: a start or a checkpoint, an event carrying a
/// configuration (a reload), a time that is not a finite number.
enum JournalRecordJSON {
    /// The record's JSON, or nil when it is one of the rare ones.
    static func encode(_ record: JournalRecord) -> [UInt8]? {
        guard record.kind == .event, record.device == nil, record.config == nil, record.sessions == nil,
            record.timers == nil, record.event?.config == nil, record.time.isFinite,
            record.timersStarted?.allSatisfy({ $0.startedAt?.isFinite ?? true }) ?? true
        else { return nil }
        return JSONText.object { json in
            json.member("error", record.error)
            if let event = record.event { json.object("event") { write(event, into: &$0) } }
            json.member("kind", record.kind)
            json.objects("notifications", record.notifications) { json, notification in
                json.member("begins", notification.begins)
                json.member("reason", notification.reason)
                json.member("session", notification.session)
                json.member("shouldResume", notification.shouldResume)
                json.member("type", notification.type)
            }
            json.objects("states", record.states) { json, state in
                json.member("appState", state.appState)
                json.member("category", state.category)
                json.member("input", state.input)
                json.member("inputRoute", state.inputRoute)
                json.member("mode", state.mode)
                json.member("options", state.options)
                json.member("output", state.output)
                json.member("route", state.route)
                json.member("session", state.session)
                json.member("state", state.state)
            }
            json.member("time", record.time)
            json.member("timersCancelled", record.timersCancelled)
            json.objects("timersStarted", record.timersStarted) { json, timer in
                json.member("milliseconds", timer.milliseconds)
                json.member("startedAt", timer.startedAt)
                json.member("timer", timer.timer)
            }
        }
    }

    private static func write(_ event: JournalEvent, into json: inout JSONText) {
        json.member("appState", event.appState)
        json.member("category", event.category)
        if let declaration = event.declaration {
            json.object("declaration") { json in
                json.member("appName", declaration.appName)
                json.member("appState", declaration.appState)
                json.member("call", declaration.call)
                json.member("callExempt", declaration.callExempt)
                json.member("category", declaration.category)
                json.member("mode", declaration.mode)
                json.member("name", declaration.name)
                json.member("options", declaration.options)
                json.member("stream", declaration.stream)
            }
        }
        json.member("direction", event.direction)
        json.member("exempt", event.exempt)
        json.member("locked", event.locked)
        json.member("mode", event.mode)
        json.member("notifyOthers", event.notifyOthers)
        json.member("options", event.options)
        json.member("port", event.port)
        json.member("session", event.session)
        json.member("silentSwitch", event.silentSwitch)
        json.member("speakerOverride", event.speakerOverride)
        json.member("stream", event.stream)
        json.member("timer", event.timer)
        json.member("type", event.type)
    }
}
