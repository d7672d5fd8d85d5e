import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// The two pipes a session's threads wait on beside its socket.
///
/// - The doorbell wakes the listener thread alone: rung when the socket is made or given up (the descriptor it
///   polls is then stale) and drained only by the listener, so nobody else ever waits on a byte meant for it.
/// - The closing pipe tells everyone waiting that `close()` was called: its write end is closed once, and its
///   read end then reads as end-of-file for good. The listener and a caller waiting for its reply both poll it,
///   and nobody drains it.
///
/// Writing and closing happen under one lock, and an end once closed is never touched again: a late `ring()`
/// must not write into whatever file the descriptor number has been given since. The read ends are closed only
/// when no thread can poll them: by the listener thread as it exits, holding the session's owner lock (callers
/// poll only while holding it, and find the session closed from then on), or by `deinit` of a session whose
/// listener never started.
final class Wakeups: Sendable {
    private struct Ends: Sendable {
        var doorbellWrite: Int32?
        var closingWrite: Int32?
        var readEndsOpen = true
    }

    /// The doorbell's read end, which the listener polls and drains.
    let doorbell: Int32
    /// The closing pipe's read end: readable (end-of-file) once `close()` was called.
    let closing: Int32
    private let ends: Locked<Ends>

    init() {
        var doorbellEnds: [Int32] = [-1, -1]
        var closingEnds: [Int32] = [-1, -1]
        _ = pipe(&doorbellEnds)
        _ = pipe(&closingEnds)
        // Non-blocking, and not inherited by an app's children.
        for end in doorbellEnds + closingEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, fcntl(end, F_GETFD) | FD_CLOEXEC)
        }
        doorbell = doorbellEnds[0]
        closing = closingEnds[0]
        ends = Locked(Ends(doorbellWrite: doorbellEnds[1], closingWrite: closingEnds[1]))
    }

    /// Wakes the listener (it then looks at the session again); does nothing once the pipes are closed.
    func ring() {
        ends.withLock { ends in
            guard let end = ends.doorbellWrite else { return }
            var byte: UInt8 = 1
            _ = write(end, &byte, 1)
        }
    }

    /// Empties the doorbell; the listener's alone.
    func drainDoorbell() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(doorbell, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Whether `close()` has been called.
    var isClosing: Bool { ends.withLock { $0.closingWrite == nil } }

    /// Tells every thread that waits, now and later, that the session is closing.
    func startClosing() {
        ends.withLock { ends in
            guard let end = ends.closingWrite else { return }
            Glibc.close(end)
            ends.closingWrite = nil
        }
    }

    /// Closes every end still open; later calls do nothing. Only once no thread can poll the read ends.
    func close() {
        ends.withLock { ends in
            if let end = ends.doorbellWrite { Glibc.close(end) }
            if let end = ends.closingWrite { Glibc.close(end) }
            if ends.readEndsOpen {
                Glibc.close(doorbell)
                Glibc.close(closing)
            }
            ends = Ends(doorbellWrite: nil, closingWrite: nil, readEndsOpen: false)
        }
    }
}
