import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Work for the connection thread: each job runs there with the connection, or with nil once the session is
/// closed (it then fails its caller).
typealias Job = @Sendable (ConnectionWorker?) -> Void

struct JobQueue: Sendable {
    var pending: [Job] = []
    var isStarted = false
    var isClosed = false
}

/// A pipe the connection thread polls beside its socket, so that a new job or `close()` wakes it. Writing and
/// closing happen under one lock, once closed never again: a late `signal()` must not write into whatever file
/// the descriptor number has been given since.
final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Locked<Int32?>

    init() {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        readEnd = ends[0]
        writeEnd = Locked(ends[1])
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    }

    func signal() {
        writeEnd.withLock { end in
            guard let end else { return }
            var byte: UInt8 = 1
            _ = write(end, &byte, 1)
        }
    }

    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Closes both ends; later calls do nothing.
    func close() {
        writeEnd.withLock { end in
            guard let open = end else { return }
            Glibc.close(open)
            Glibc.close(readEnd)
            end = nil
        }
    }
}

/// The result of a job, handed from the connection thread to the waiting caller.
private final class Outcome<Value: Sendable>: Sendable {
    let result = Locked<Result<Value, AudioSessionError>?>(nil)
    let done = DispatchSemaphore(value: 0)
}

extension AudioSession {
    /// The key under which the connection thread keeps its worker, so that a call made on that thread (from an
    /// `onVerdict` callback) runs at once instead of waiting for itself.
    var workerKey: String { "AudioSessionClient.worker.\(UInt(bitPattern: ObjectIdentifier(self).hashValue))" }

    var isOnWorkerThread: Bool { Thread.current.threadDictionary[workerKey] != nil }

    /// Runs `body` on the connection thread, starting it on first use, and waits for its result.
    func perform<Value: Sendable>(
        _ body: @escaping @Sendable (ConnectionWorker) throws(AudioSessionError) -> Value
    ) throws(AudioSessionError) -> Value {
        if let worker = Thread.current.threadDictionary[workerKey] as? ConnectionWorker { return try body(worker) }
        let outcome = Outcome<Value>()
        let closedError = AudioSessionError(.daemonUnavailable, "the session for \(socketPath) was closed")
        let job: Job = { worker in
            let result: Result<Value, AudioSessionError>
            if let worker {
                do throws(AudioSessionError) { result = .success(try body(worker)) } catch { result = .failure(error) }
            } else {
                result = .failure(closedError)
            }
            outcome.result.withLock { $0 = result }
            outcome.done.signal()
        }
        let (accepted, mustStart) = jobs.withLock { queue -> (Bool, Bool) in
            guard !queue.isClosed else { return (false, false) }
            queue.pending.append(job)
            defer { queue.isStarted = true }
            return (true, !queue.isStarted)
        }
        guard accepted else { throw closedError }
        if mustStart { startWorker() } else { wake.signal() }
        outcome.done.wait()
        return try outcome.result.withLock { $0! }.get()
    }

    private func startWorker() {
        let thread = Thread { [self] in
            let worker = ConnectionWorker(session: self)
            Thread.current.threadDictionary[workerKey] = worker
            worker.run()
            Thread.current.threadDictionary.removeObject(forKey: workerKey)
            workerExited.signal()
        }
        thread.name = "audiosession \(appName)"
        thread.start()
    }
}
