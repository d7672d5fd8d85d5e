internal import CPulse

/// An operation in flight that a connection loss or `close()` must fail.
protocol PendingOperation: AnyObject {
    /// The libpulse call, for error messages.
    var name: String { get }
    /// Resumes the waiting caller with `error` unless it already resumed. Only with the mainloop lock held.
    func fail(_ error: PulseError)
    /// The object whose teardown cancels this operation in libpulse (a stream), if any.
    var owner: ObjectIdentifier? { get }
}

/// One libpulse request and the caller awaiting its answer.
///
/// Ownership: `ContextCore.pending` holds the only strong reference from issue until completion; the C
/// `userdata` is unretained. libpulse calls back at most until the final callback (success, index, or `eol != 0`),
/// and never after the context or the owning stream failed or was disconnected (it cancels their operations);
/// both of those paths fail and drop the box first, with the lock held. Every stored var is touched only with the
/// mainloop lock held.
final class OperationBox<Value: Sendable>: PendingOperation, @unchecked Sendable {
    let name: String
    let owner: ObjectIdentifier?
    private unowned let core: ContextCore
    private var continuation: CheckedContinuation<Value, any Error>?
    /// The answer gathered so far, for answers that come in several callbacks.
    private var partial: Value?

    init(name: String, owner: ObjectIdentifier?, core: ContextCore, continuation: CheckedContinuation<Value, any Error>)
    {
        self.name = name
        self.owner = owner
        self.core = core
        self.continuation = continuation
    }

    /// The box behind a callback's `userdata`.
    static func from(_ userdata: UnsafeMutableRawPointer?) -> OperationBox<Value> {
        Unmanaged<OperationBox<Value>>.fromOpaque(userdata!).takeUnretainedValue()
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The properties a stream's info keeps on this connection.
    var appPropertyKeys: Proplist.Keys? { core.appPropertyKeys }

    func succeed(_ value: Value) {
        guard let continuation else { return }
        self.continuation = nil
        core.answered(self)
        continuation.resume(returning: value)
    }

    func fail(_ error: PulseError) {
        guard let continuation else { return }
        self.continuation = nil
        core.answered(self)
        continuation.resume(throwing: error)
    }

    /// Fails with the context's last error (libpulse reported failure).
    func failWithContextError(_ context: OpaquePointer?) {
        fail(PulseError.last(of: context, operation: name))
    }

    /// Handles one callback of a list answer: gathers `item`, and at the end (`eol > 0`) resumes with the list;
    /// `eol < 0` is an error.
    func receive<Element: Sendable>(_ item: Element?, eol: Int32, context: OpaquePointer?) where Value == [Element] {
        if eol < 0 { return failWithContextError(context) }
        var items = partial.take() ?? []  // take, so appending does not copy
        if let item { items.append(item) }
        if eol > 0 { succeed(items) } else { partial = items }
    }

    /// Handles one callback of a single-object answer: `nil` when the server says there is no such object.
    func receiveOne<Element: Sendable>(_ item: Element?, eol: Int32, context: OpaquePointer?) where Value == Element? {
        if eol < 0 {
            if let context, pa_context_errno(context) == PulseError.Code.noEntity.rawValue { return succeed(nil) }
            return failWithContextError(context)
        }
        if let item { partial = .some(item) }
        if eol > 0 { succeed(partial ?? nil) }
    }
}

/// Thunks for the callback shapes shared by many calls.
enum Thunk {
    /// `pa_context_success_cb_t`.
    static let success: pa_context_success_cb_t = { context, success, userdata in
        let box = OperationBox<Void>.from(userdata)
        if success != 0 { box.succeed(()) } else { box.failWithContextError(context) }
    }

    /// `pa_context_index_cb_t` (load-module).
    static let index: pa_context_index_cb_t = { context, index, userdata in
        let box = OperationBox<UInt32>.from(userdata)
        if index != invalidIndex { box.succeed(index) } else { box.failWithContextError(context) }
    }
}
