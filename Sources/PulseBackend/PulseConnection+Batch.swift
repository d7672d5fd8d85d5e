internal import CPulse

/// One change to another client's stream, for `PulseConnection.apply(_:)`.
public enum PulseStreamChange: Sendable, Hashable {
    case sinkInputVolume(UInt32, PulseVolume)
    case sinkInputMute(UInt32, Bool)
    case moveSinkInput(UInt32, toSink: UInt32)
    case sourceOutputVolume(UInt32, PulseVolume)
    case sourceOutputMute(UInt32, Bool)
    case moveSourceOutput(UInt32, toSource: UInt32)

    /// The stream it writes to.
    var stream: WrittenStream {
        switch self {
        case .sinkInputVolume(let index, _), .sinkInputMute(let index, _), .moveSinkInput(let index, _):
            .sinkInput(index)
        case .sourceOutputVolume(let index, _), .sourceOutputMute(let index, _), .moveSourceOutput(let index, _):
            .sourceOutput(index)
        }
    }

    /// The libpulse call that makes it, for errors.
    var callName: String {
        switch self {
        case .sinkInputVolume: "pa_context_set_sink_input_volume"
        case .sinkInputMute: "pa_context_set_sink_input_mute"
        case .moveSinkInput: "pa_context_move_sink_input_by_index"
        case .sourceOutputVolume: "pa_context_set_source_output_volume"
        case .sourceOutputMute: "pa_context_set_source_output_mute"
        case .moveSourceOutput: "pa_context_move_source_output_by_index"
        }
    }

    /// Issues the call; the lock held. Nil when libpulse refused it.
    func issue(_ context: OpaquePointer, _ userdata: UnsafeMutableRawPointer) throws(PulseError) -> OpaquePointer? {
        let done = BatchBox.itemDone
        switch self {
        case .sinkInputVolume(let index, let volume):
            var cVolume = try volume.cVolume(for: callName)
            return pa_context_set_sink_input_volume(context, index, &cVolume, done, userdata)
        case .sinkInputMute(let index, let muted):
            return pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, done, userdata)
        case .moveSinkInput(let index, let sink):
            return pa_context_move_sink_input_by_index(context, index, sink, done, userdata)
        case .sourceOutputVolume(let index, let volume):
            var cVolume = try volume.cVolume(for: callName)
            return pa_context_set_source_output_volume(context, index, &cVolume, done, userdata)
        case .sourceOutputMute(let index, let muted):
            return pa_context_set_source_output_mute(context, index, muted ? 1 : 0, done, userdata)
        case .moveSourceOutput(let index, let source):
            return pa_context_move_source_output_by_index(context, index, source, done, userdata)
        }
    }
}

/// A stream that `PulseConnection.apply(_:)` writes to.
enum WrittenStream: Hashable {
    case sinkInput(UInt32)
    case sourceOutput(UInt32)

    init?(_ facility: PulseFacility, _ index: UInt32) {
        switch facility {
        case .sinkInput: self = .sinkInput(index)
        case .sourceOutput: self = .sourceOutput(index)
        default: return nil
        }
    }
}

extension PulseConnection {
    /// Makes every change, in order, and waits until the server has answered them all; each change's error, or
    /// nil where it was made. One wake-up of libpulse's thread and one of the caller for the lot, where a call
    /// per change costs two each; the server carries them out in the order given, as it would one by one.
    public func apply(_ changes: [PulseStreamChange]) async -> [PulseError?] {
        guard !changes.isEmpty else { return [] }
        let core: ContextCore
        do { core = try self.core("apply") } catch {
            return changes.map { _ in error }
        }
        return await core.performAll(changes)
    }
}

extension ContextCore {
    /// Issues every change under one hold of the lock and resumes once all are answered (or failed).
    func performAll(_ changes: [PulseStreamChange]) async -> [PulseError?] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[PulseError?], Never>) in
            do throws(PulseError) {
                try mainloop.withLock("apply") { _ throws(PulseError) in
                    let context = try readyContext("apply")
                    requestsIssued &+= 1
                    let batch = BatchBox(changes: changes, core: self, continuation: continuation)
                    register(batch)
                    writesIssued(to: batch.streams)
                    for (position, change) in changes.enumerated() {
                        do throws(PulseError) {
                            if let operation = try change.issue(context, batch.userdata(of: position)) {
                                pa_operation_unref(operation)
                            } else {
                                batch.answer(position, PulseError.last(of: context, operation: change.callName))
                            }
                        } catch {
                            batch.answer(position, error)
                        }
                    }
                }
            } catch {
                continuation.resume(returning: changes.map { _ in error })
            }
        }
    }
}

/// Several libpulse requests and the one caller awaiting all their answers.
///
/// Ownership as `OperationBox`'s: `ContextCore.pending` holds the only strong reference until the last answer;
/// each request's `userdata` is an unretained item that names the batch and the request's position. Every stored
/// var is touched only with the mainloop lock held.
final class BatchBox: PendingOperation, @unchecked Sendable {
    let name = "apply"
    let owner: ObjectIdentifier? = nil
    private unowned let core: ContextCore
    private var continuation: CheckedContinuation<[PulseError?], Never>?
    private var answers: [PulseError??]
    private var unanswered: Int
    private var items: [Item] = []
    private var changes: [PulseStreamChange] = []
    let streams: Set<WrittenStream>

    /// One request of the batch, behind its `userdata`.
    final class Item {
        unowned let batch: BatchBox
        let position: Int
        init(batch: BatchBox, position: Int) {
            self.batch = batch
            self.position = position
        }
    }

    init(changes: [PulseStreamChange], core: ContextCore, continuation: CheckedContinuation<[PulseError?], Never>) {
        self.core = core
        self.continuation = continuation
        self.answers = Array(repeating: nil, count: changes.count)
        self.unanswered = changes.count
        self.changes = changes
        self.streams = Set(changes.map(\.stream))
        self.items = changes.indices.map { Item(batch: self, position: $0) }
    }

    func userdata(of position: Int) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(items[position]).toOpaque()
    }

    /// `pa_context_success_cb_t` for every request of a batch.
    static let itemDone: pa_context_success_cb_t = { context, success, userdata in
        let item = Unmanaged<Item>.fromOpaque(userdata!).takeUnretainedValue()
        let batch = item.batch
        batch.answer(
            item.position,
            success != 0 ? nil : PulseError.last(of: context, operation: batch.changes[item.position].callName)
        )
    }

    /// Records one request's answer (nil: done); the last one resumes the caller.
    func answer(_ position: Int, _ error: PulseError?) {
        guard continuation != nil, answers[position] == nil else { return }
        answers[position] = .some(error)
        unanswered -= 1
        if unanswered == 0 { finish() }
    }

    /// Fails every request not answered yet.
    func fail(_ error: PulseError) {
        for position in answers.indices where answers[position] == nil { answers[position] = .some(error) }
        finish()
    }

    private func finish() {
        guard let continuation else { return }
        self.continuation = nil
        core.answered(self)
        core.writesAnswered(to: streams)
        continuation.resume(returning: answers.map { $0 ?? nil })
    }
}
