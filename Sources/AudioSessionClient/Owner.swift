import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The session's one owner: whoever holds `owner` works on the connection, on its own thread.
///
/// A caller takes the lock and runs its own call: it writes the request, reads until its reply and handles the
/// events read meanwhile. Between calls the listener thread waits for the socket, the next connection attempt,
/// its doorbell or `close()` without the lock, and takes it to do what is due. Whoever holds the lock marks its
/// thread (`OwnerThread`), so that a call made from a callback run meanwhile (`onVerdict`) runs at once instead of
/// waiting for the lock its own thread holds.
extension AudioSession {
    /// The connection, when this thread holds the owner lock (a call made from inside a callback).
    var connectionOwnedHere: SessionConnection? { ownerThread.connectionHere }

    /// Runs `body` holding the owner lock, its thread marked as the owner's.
    private func owning<Value>(_ body: @Sendable (SessionConnection) throws(AudioSessionError) -> Value)
        throws(AudioSessionError) -> Value
    {
        try owner.withLock { connection throws(AudioSessionError) -> sending Value in
            ownerThread.enter(holding: connection)
            defer { ownerThread.leave() }
            return try body(connection)
        }
    }

    /// Runs `body` on the caller's thread with the connection, holding the owner lock; the listener thread
    /// starts on first use. From a callback run by the lock's holder, it runs at once.
    func perform<Value: Sendable>(_ body: @Sendable (SessionConnection) throws(AudioSessionError) -> Value)
        throws(AudioSessionError) -> Value
    {
        if let connection = connectionOwnedHere { return try body(connection) }
        let closedError = AudioSessionError(.daemonUnavailable, "the session for \(socketPath) was closed")
        return try owning { connection throws(AudioSessionError) -> Value in
            guard !wakeups.isClosing else {
                connection.shutDown()
                throw closedError
            }
            if !connection.listenerStarted {
                connection.listenerStarted = true
                startListener()
            }
            connection.connectIfDue()
            defer {
                connection.finishWork()
                if wakeups.isClosing { connection.shutDown() }
            }
            return try body(connection)
        }
    }

    /// Closes the session: every waiting thread is told at once (a caller waiting for its reply gives up), then
    /// the connection is closed under the lock, or at once from a callback run by the lock's holder.
    func closeOwned() {
        wakeups.startClosing()
        if let connection = connectionOwnedHere {
            connection.shutDown()
        } else {
            owner.withLock { $0.shutDown() }
        }
    }

    private func startListener() {
        startThread(named: "audiosession \(appName)") { [self] in listen() }
    }

    /// The listener thread: waits without the lock, works with it, and ends once the session is closed, closing
    /// the pipes itself (no other thread can poll them by then: callers poll only while holding the lock, and
    /// find the session closed). It keeps the session alive until then.
    private func listen() {
        var watch: ListenerWatch? = owner.withLock { connection in
            connection.listenerThreadID = Self.currentThreadID()
            return connection.watch
        }
        while let waitingFor = watch {
            wait(for: waitingFor)
            watch = try? owning { connection throws(AudioSessionError) -> ListenerWatch? in
                if !wakeups.isClosing {
                    connection.connectIfDue()
                    connection.readWhatArrived()
                    connection.finishWork()
                }
                // A callback may have closed the session meanwhile.
                guard wakeups.isClosing else { return connection.watch }
                connection.shutDown()
                wakeups.close()
                return nil
            }
        }
    }

    /// The kernel's id of the calling thread, from `/proc/thread-self` (`PID/task/TID`).
    private static func currentThreadID() -> Int32? {
        var target = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &target, target.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/").last.flatMap { Int32($0) }
    }

    /// Waits for the socket to be readable, the doorbell, `close()`, or the next connection attempt; empties
    /// the doorbell. What it saw is only a hint: the owner looks again under the lock (a caller may have read
    /// the socket meanwhile, or replaced it).
    private func wait(for watch: ListenerWatch) {
        var descriptors = [
            pollfd(fd: wakeups.doorbell, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeups.closing, events: Int16(POLLIN), revents: 0),
        ]
        if let socket = watch.socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        guard poll(&descriptors, nfds_t(descriptors.count), watch.timeout) > 0 else { return }
        if descriptors[0].revents != 0 { wakeups.drainDoorbell() }
    }
}

/// Which thread holds a session's owner lock, and the connection it holds: a call made from a callback that thread
/// runs meanwhile finds it here and runs at once, instead of waiting for the lock its own thread holds.
final class OwnerThread: @unchecked Sendable {
    /// The holder's `pthread_self()`; 0 while nobody holds the lock.
    private let holder = Atomic<UInt>(0)
    /// Written by the holder as it takes the lock and lets it go, read only by the holder (`connectionHere` reads
    /// it only on the thread `holder` names): the lock orders one holder's writes before the next one's.
    private var held: SessionConnection?

    /// The owner lock was taken on this thread, with `connection`.
    func enter(holding connection: SessionConnection) {
        held = connection
        holder.store(Self.thisThread, ordering: .relaxed)
    }

    /// The owner lock is let go (still held while this runs).
    func leave() {
        holder.store(0, ordering: .relaxed)
        held = nil
    }

    /// The connection, when this thread holds the owner lock.
    var connectionHere: SessionConnection? {
        holder.load(ordering: .relaxed) == Self.thisThread ? held : nil
    }

    private static var thisThread: UInt { UInt(pthread_self()) }
}
