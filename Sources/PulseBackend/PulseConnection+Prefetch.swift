internal import CPulse

/// A new stream's or client's info (or a changed stream's or device's), asked for on libpulse's thread as its
/// event was read, and handed over with the event (`PulseConnection.listen(prefetchingNewStreams:_:)`). It saves
/// the consumer the round trip of asking itself: a wake-up of libpulse's thread to send the query and one of the
/// consumer for the answer.
///
/// It shows the stream as it was after every write to it answered before it was asked for, and none sent after:
/// `isCurrent` says whether it still does. A write sent before it but answered after need not show in it:
/// pipewire-pulse may answer a query sent while a volume write is on its way from the values before the write.
/// Only the stream's own writes count for a stream's info (another stream's volume or move leaves it as it
/// is); for a device's or a client's, and for the saved restore entry (a write to any stream of the same key
/// may change it: `isRestoreEntryCurrent`), every request of the connection counts. A consumer that reads its
/// own writes in what it queries (and takes any other difference for someone else's change) uses it only while
/// it is current, and asks anew otherwise.
public struct PulsePrefetch: Sendable {
    public enum Info: Sendable {
        /// The playback stream; nil when it was gone by the time the server answered.
        case sinkInput(PulseSinkInput?)
        /// The record stream; nil when it was gone by the time the server answered.
        case sourceOutput(PulseSourceOutput?)
        /// The client (an app's connection, before it opens its streams); nil when it was gone.
        case client(PulseClient?)
        /// The output device; nil when it was gone.
        case sink(PulseSink?)
        /// The input device; nil when it was gone.
        case source(PulseSource?)
    }

    public let info: Info
    /// A playback stream's saved entry in module-stream-restore (its `module-stream-restore.id`), read right after
    /// its info: nil when it has none. Only when `restoreEntryRead`: not when the stream has no restore key, or
    /// the read failed or was not sent (no module-stream-restore on the server: once a read has said so, the
    /// connection reads no more until a module is loaded).
    public let restoreEntry: PulseStreamRestoreEntry?
    public let restoreEntryRead: Bool
    /// `ContextCore.requestsIssued` when it was asked for; nil when one of them was still unanswered then.
    let requestsBefore: UInt64?
    /// For a stream's info: the stream, and `ContextCore.requestsIssued` when it was asked for (nil when a write
    /// to the stream was still unanswered then).
    let stream: (WrittenStream, writesBefore: UInt64?)?
}

extension PulseConnection {
    /// `listen(_:)`, with a new playback or record stream's (or client's) info asked for as its event is read and
    /// handed over with it when `prefetchingNewStreams` (nil when the query failed), and a playback stream's saved
    /// entry in module-stream-restore with it. The events after such an event wait until its answers are in, so
    /// the order they were read in is kept, for every subscriber of the connection. Call it once connected.
    ///
    /// With `prefetchingChanges` too, a stream's or device's change (and a device's appearance) comes with its
    /// info the same way, asked for as the change was read. For a consumer that queries what changed, as the
    /// daemon's loop does with the echoes of its own writes: the round trip is made on libpulse's thread, none
    /// of the consumer's. Every change gets its own query: a query on its way when a change is read need not show
    /// it (pipewire-pulse may answer from before a change whose event it sent first).
    public func listen(
        prefetchingNewStreams: Bool,
        prefetchingChanges: Bool = false,
        _ handler: @escaping @Sendable (PulseEvent, PulsePrefetch?) -> Void
    ) {
        broadcaster.listen(handler)
        guard prefetchingNewStreams, let core = try? core("listen") else { return }
        try? core.mainloop.withLock("listen") { _ in
            core.prefetchesNewStreams = true
            core.prefetchesChanges = prefetchingChanges
        }
    }

    /// Whether `prefetch`'s info shows what a query made now would, as far as this connection's own requests go:
    /// for a stream, every write to it sent before the info was asked for had its answer by then, and none was
    /// sent since; for anything else, the same of every request.
    public func isCurrent(_ prefetch: PulsePrefetch) -> Bool {
        guard let core = try? core("isCurrent") else { return false }
        let current = try? core.mainloop.withLock("isCurrent") { _ in
            guard let (stream, writesBefore) = prefetch.stream else {
                return core.requestsIssued == prefetch.requestsBefore
            }
            guard let writesBefore else { return false }
            return core.lastWrite[stream, default: 0] <= writesBefore
        }
        return current ?? false
    }

    /// Whether `prefetch`'s saved restore entry is what a read made now would give, as far as this connection's
    /// own requests go: every request sent before it was read had its answer by then, and none was sent since.
    public func isRestoreEntryCurrent(_ prefetch: PulsePrefetch) -> Bool {
        guard let core = try? core("isRestoreEntryCurrent") else { return false }
        let current = try? core.mainloop.withLock("isRestoreEntryCurrent") { _ in
            core.requestsIssued == prefetch.requestsBefore
        }
        return current ?? false
    }
}

/// An event read while a new stream's info is on its way (its own, or an earlier event's).
struct WaitingEvent {
    let event: PulseEvent
    /// The query of the stream the event is about, if it is a new stream's.
    let prefetch: PrefetchBox?
}

/// The query of a new stream's info, made on libpulse's thread as its event is read; for a playback stream, the
/// read of module-stream-restore's entries is sent with it, so that both answers come in one round trip (the read
/// lists every entry whatever the key, and the stream's key is only known from its info).
///
/// Ownership as `OperationBox`'s: `ContextCore.pending` holds it from issue until its answers; its `userdata` is
/// unretained; libpulse calls back until the final callback of each request, and a connection loss fails it.
/// Every stored var is touched only with the mainloop lock held.
final class PrefetchBox: PendingOperation, @unchecked Sendable {
    let name: String
    let owner: ObjectIdentifier? = nil
    private unowned let core: ContextCore
    private let requestsBefore: UInt64?
    private let stream: (WrittenStream, writesBefore: UInt64?)?
    private var gathered: PulsePrefetch.Info?
    /// Set once the info's query has its answer (`gathered`: the info, or nil when it failed).
    private var infoAnswered = false
    /// The restore read sent with the info's query, while its answer is still coming.
    private var restoreReadPending = false
    /// The read's outcome: its entries (by key), or nil when it failed or was not sent (no module-stream-restore:
    /// `ContextCore.streamRestoreMissing`).
    private var restoreEntries: [String: PulseStreamRestoreEntry]? = [:]
    /// Set once answered: the info, or nil when the query failed.
    private(set) var isAnswered = false
    private(set) var answer: PulsePrefetch?

    private init(name: String, core: ContextCore, stream: WrittenStream? = nil) {
        self.name = name
        self.core = core
        self.requestsBefore = core.requestsAnswered == core.requestsIssued ? core.requestsIssued : nil
        self.stream = stream.map { ($0, core.unansweredWrites[$0] == nil ? core.requestsIssued : nil) }
    }

    /// Asks for the info of the stream that `event` says is new, or of the client it says is new or changed (a
    /// client names its process in a change right after it connects), and with `changes` of the stream or device
    /// it says changed (or the device it says is new); nil for any other event, or when libpulse refused the
    /// query. The lock held.
    static func ask(for event: PulseEvent, context: OpaquePointer, core: ContextCore, changes: Bool) -> PrefetchBox? {
        guard case .changed(let facility, let change, let index) = event, change != .remove else { return nil }
        let box: PrefetchBox
        let operation: OpaquePointer?
        switch facility {
        case .sinkInput where change == .new || changes:
            box = PrefetchBox(name: "pa_context_get_sink_input_info", core: core, stream: .sinkInput(index))
            operation = pa_context_get_sink_input_info(context, index, sinkInputAnswered, box.userdata)
            if change == .new, operation != nil, !core.streamRestoreMissing,
                let read = pa_ext_stream_restore_read(context, restoreEntryAnswered, box.userdata)
            {
                pa_operation_unref(read)
                box.restoreReadPending = true
                core.restoreReadsSent += 1
            } else {
                box.restoreEntries = nil
            }
        case .sourceOutput where change == .new || changes:
            box = PrefetchBox(name: "pa_context_get_source_output_info", core: core, stream: .sourceOutput(index))
            operation = pa_context_get_source_output_info(context, index, sourceOutputAnswered, box.userdata)
        case .client:
            box = PrefetchBox(name: "pa_context_get_client_info", core: core)
            operation = pa_context_get_client_info(context, index, clientAnswered, box.userdata)
        case .sink where changes:
            box = PrefetchBox(name: "pa_context_get_sink_info_by_index", core: core)
            operation = pa_context_get_sink_info_by_index(context, index, sinkAnswered, box.userdata)
        case .source where changes:
            box = PrefetchBox(name: "pa_context_get_source_info_by_index", core: core)
            operation = pa_context_get_source_info_by_index(context, index, sourceAnswered, box.userdata)
        default:
            return nil
        }
        guard let operation else { return nil }
        pa_operation_unref(operation)
        core.register(box)
        return box
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> PrefetchBox {
        Unmanaged<PrefetchBox>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// The properties an app's info keeps on this connection.
    private var keys: Proplist.Keys? { core.appPropertyKeys }

    private static let sinkInputAnswered: pa_sink_input_info_cb_t = { context, info, eol, userdata in
        let box = from(userdata)
        let input = info.map { PulseSinkInput($0.pointee, keeping: box.keys) }
        box.receive(input.map(PulsePrefetch.Info.sinkInput), gone: .sinkInput(nil), eol, context)
    }

    private static let sourceOutputAnswered: pa_source_output_info_cb_t = { context, info, eol, userdata in
        let box = from(userdata)
        let output = info.map { PulseSourceOutput($0.pointee, keeping: box.keys) }
        box.receive(output.map(PulsePrefetch.Info.sourceOutput), gone: .sourceOutput(nil), eol, context)
    }

    private static let clientAnswered: pa_client_info_cb_t = { context, info, eol, userdata in
        let box = from(userdata)
        let client = info.map { PulseClient($0.pointee, keeping: box.keys) }
        box.receive(client.map(PulsePrefetch.Info.client), gone: .client(nil), eol, context)
    }

    private static let sinkAnswered: pa_sink_info_cb_t = { context, info, eol, userdata in
        from(userdata).receive(info.map { .sink(PulseSink($0.pointee)) }, gone: .sink(nil), eol, context)
    }

    private static let sourceAnswered: pa_source_info_cb_t = { context, info, eol, userdata in
        from(userdata).receive(info.map { .source(PulseSource($0.pointee)) }, gone: .source(nil), eol, context)
    }

    /// One callback of the info's answer: the info, then the end (`eol > 0`); `eol < 0` is an error, "no such
    /// entity" when the stream is gone.
    private func receive(_ item: PulsePrefetch.Info?, gone: PulsePrefetch.Info, _ eol: Int32, _ context: OpaquePointer?)
    {
        if let item { gathered = item }
        if eol > 0 {
            if gathered == nil { gathered = gone }
        } else if eol < 0 {
            let isGone = context.map { pa_context_errno($0) == PulseError.Code.noEntity.rawValue } ?? false
            gathered = isGone ? gone : nil
        } else {
            return
        }
        infoAnswered = true
        finishWhenAnswered()
    }

    /// module-stream-restore's entries, one per callback, then the end; an error (no such module) leaves the
    /// entry unread. Kept by key: the info, answered first, names the one wanted, but the answers' order is the
    /// server's to keep.
    private static let restoreEntryAnswered: pa_ext_stream_restore_read_cb_t = { context, info, eol, userdata in
        let box = from(userdata)
        if let info {
            let entry = PulseStreamRestoreEntry(info.pointee)
            if box.wants(entry.key) { box.restoreEntries?[entry.key] = entry }
        }
        if eol != 0 {
            if eol < 0 {
                box.restoreEntries = nil
                if pa_context_errno(context) == Int32(PA_ERR_NOEXTENSION.rawValue) { box.core.streamRestoreMissing = true }
            }
            box.restoreReadPending = false
            box.finishWhenAnswered()
        }
    }

    /// Whether the entry under `key` may be the stream's: its own once the info is in, any before.
    private func wants(_ key: String) -> Bool {
        guard infoAnswered else { return true }
        return restoreKey == key
    }

    /// The playback stream's restore key, once its info is in.
    private var restoreKey: String? {
        guard case .sinkInput(let input?) = gathered else { return nil }
        return input.properties["module-stream-restore.id"]
    }

    func fail(_ error: PulseError) {
        restoreReadPending = false
        restoreEntries = nil
        if !infoAnswered {
            infoAnswered = true
            gathered = nil
        }
        finishWhenAnswered()
    }

    /// Hands the answer over once both the info and the restore read sent with it are in. The entry counts as
    /// read only when the stream has a restore key and the read succeeded.
    private func finishWhenAnswered() {
        guard infoAnswered, !restoreReadPending, !isAnswered else { return }
        isAnswered = true
        let key = restoreKey
        let entries = key == nil ? nil : restoreEntries
        answer = gathered.map {
            PulsePrefetch(
                info: $0,
                restoreEntry: key.flatMap { entries?[$0] },
                restoreEntryRead: entries != nil,
                requestsBefore: requestsBefore,
                stream: stream
            )
        }
        core.forget(self)
        core.handOverWaitingEvents()
    }
}
