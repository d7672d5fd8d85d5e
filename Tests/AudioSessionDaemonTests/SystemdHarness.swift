import AudioSessionTestSupport
import Foundation
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Stands in for systemd where it is not PID 1: receives `sd_notify` datagrams, hands a listening socket to a
/// daemon as descriptor 3 with `LISTEN_PID` naming the daemon itself, and starts and stops the daemon.

/// A `NOTIFY_SOCKET`: a Unix datagram socket whose messages a thread of its own reads and timestamps as they
/// come. When one says `READY=1`, `checkAtReady` runs at once, before the next message is read, and its answer
/// is kept with the message.
final class NotifyListener: Sendable {
    struct Message: Sendable {
        var at: ContinuousClock.Instant
        var fields: [String]
        /// What `checkAtReady` said, for a message with `READY=1`.
        var checkedAtReady: Bool?

        func has(_ field: String) -> Bool { fields.contains(field) }
        var status: String? { fields.first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst("STATUS=".count)) } }
    }

    /// What `NOTIFY_SOCKET` should say: the path, or `@name` for an abstract socket.
    let address: String
    private let descriptor: Int32
    private let received = Locked<[Message]>([])
    private let stopped = Atomic<Bool>(false)
    private let reading = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Listens at `path`, or at an abstract name when `abstract` (then `path` only makes the name unique).
    init(path: String, abstract: Bool = false, checkAtReady: @escaping @Sendable () -> Bool = { true }) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("cannot create a datagram socket: errno \(errno)") }
        var name = Array(path.utf8)
        if abstract { name.insert(0, at: 0) }
        address = abstract ? "@" + path : path
        try withSocketAddress(name, terminated: !abstract) { address, length in
            guard bind(descriptor, address, length) == 0 else {
                throw HarnessError("cannot bind \(path): errno \(errno)")
            }
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stopped.load(ordering: .relaxed) {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { continue }
                let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
                var message = Message(at: .now, fields: fields)
                if fields.contains("READY=1") { message.checkedAtReady = checkAtReady() }
                received.withLock { $0.append(message) }
            }
            finished.signal()
        }
        reading.store(true, ordering: .relaxed)
        thread.start()
    }

    /// Every message so far, oldest first.
    var messages: [Message] { received.withLock { $0 } }

    /// The first message that satisfies `condition`, waiting for it at most `seconds`.
    /// Checks once more after the deadline: a test task starved by a busy machine may wake only after it.
    func first(within seconds: Double, where condition: (Message) -> Bool) async throws -> Message {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let expired = ContinuousClock.now >= deadline
            if let found = messages.first(where: condition) { return found }
            if expired { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError(
            "no such notification within \(seconds) s; got: \(messages.map { $0.fields.joined(separator: "|") })"
        )
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        if reading.load(ordering: .relaxed) { finished.wait() }
        close(descriptor)
    }

    deinit { stop() }
}

/// A daemon started the way systemd would start it: with `posix_spawn`, an empty signal mask (threads of Swift
/// concurrency block nearly every signal, and a child inherits its spawning thread's mask) and default signal
/// actions, the given environment, and optionally a listening socket as descriptor 3.
final class SpawnedDaemon: Sendable {
    let processID: pid_t
    /// The daemon's standard output and error.
    let logPath: String
    private let exitStatus = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments` in `environment` (this process's own `NOTIFY_SOCKET`, `WATCHDOG_*`,
    /// `LISTEN_*` and `STATE_DIRECTORY` are never passed on; give the daemon a `--state-dir` of the test's). With `listeningSocket`, that descriptor becomes 3 and
    /// `LISTEN_PID` is set to the child's own pid, which no one knows before it exists: `sh` sets it from `$$`
    /// and then `exec`s the daemon, which keeps the pid.
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        listeningSocket: Int32? = nil,
        logPath: String
    ) throws {
        self.logPath = logPath
        var inherited = ProcessInfo.processInfo.environment
        let systemdVariables = [
            "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES",
            "STATE_DIRECTORY",
        ]
        for name in systemdVariables {
            inherited[name] = nil
        }
        let merged = inherited.merging(environment) { _, new in new }
        var program = executable
        var argv = [executable] + arguments
        if listeningSocket != nil {
            program = "/bin/sh"
            argv = ["/bin/sh", "-c", "LISTEN_PID=$$ exec \"$0\" \"$@\"", executable] + arguments
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        if let listeningSocket {
            // dup2 onto itself would keep close-on-exec; the caller's socket is never 3 (see listeningSocket()).
            precondition(listeningSocket != 3)
            posix_spawn_file_actions_adddup2(&actions, listeningSocket, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments + cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        // Under the tests' launch lock: a child spawned beside a Foundation `Process` inherited its exit-watch
        // socket and hid its exit while the daemon ran (a refused `audiosessiond` "did not finish within 30 s",
        // a `pactl` too, in a run with stress-ng beside it).
        let result = ChildProcess.launching {
            posix_spawn(&pid, program, &actions, &attributes, cArguments, cEnvironment)
        }
        guard result == 0 else { throw HarnessError("cannot start \(program): error \(result)") }
        processID = pid
    }

    func signal(_ signal: Int32) { kill(processID, signal) }

    /// The exit status once the daemon has exited (waiting at most `seconds`), or nil; `-N` for a signal N.
    func waitForExit(within seconds: Double) async throws -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let expired = ContinuousClock.now >= deadline
            if let status = reap() { return status }
            if expired { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the daemon if it still runs, and reaps it.
    func stop() {
        guard reap() == nil else { return }
        kill(processID, SIGKILL)
        var status: Int32 = 0
        if waitpid(processID, &status, 0) == processID { exitStatus.withLock { $0 = -SIGKILL } }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private func reap() -> Int32? {
        exitStatus.withLock { known in
            if let known { return known }
            var status: Int32 = 0
            guard waitpid(processID, &status, WNOHANG) == processID else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            let signal = status & 0x7f
            known = signal == 0 ? (status >> 8) & 0xff : -signal
            return known
        }
    }

    deinit { stop() }
}

/// Waits until `condition` holds, checking every 20 ms for at most `seconds`, and once more after that (a test
/// task starved by a busy machine may wake only after the deadline); fails naming what was awaited.
func waitUntil(_ what: String, within seconds: Double = 5, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        let expired = ContinuousClock.now >= deadline
        if condition() { return }
        if expired { throw HarnessError("timed out after \(seconds) s waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A Unix stream socket bound at `path` and listening, close-on-exec, at a descriptor above 3: what a .socket
/// unit would hold for the daemon.
func listeningSocket(at path: String) throws -> Int32 {
    let first = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard first >= 0 else { throw HarnessError("cannot create a socket: errno \(errno)") }
    let descriptor = fcntl(first, F_DUPFD_CLOEXEC, 10)
    close(first)
    guard descriptor >= 0 else { throw HarnessError("cannot move the socket above 3: errno \(errno)") }
    try withSocketAddress(Array(path.utf8), terminated: true) { address, length in
        guard bind(descriptor, address, length) == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw HarnessError("cannot listen on \(path): errno \(errno)")
        }
    }
    return descriptor
}

/// Whether a stream connection to `path` is accepted (queued by a listening socket) right now.
func acceptsConnections(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return
        (try? withSocketAddress(Array(path.utf8), terminated: true) { address, length in
            connect(descriptor, address, length) == 0
        }) ?? false
}

/// Calls `body` with a `sockaddr_un` holding `name` (zero-terminated for a path; an abstract name starts with
/// a zero byte and is not terminated) and its length.
private func withSocketAddress<Result>(
    _ name: [UInt8],
    terminated: Bool,
    _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
) throws -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = terminated ? name + [0] : name
    guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else {
        throw HarnessError("socket name too long: \(String(decoding: name, as: UTF8.self))")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
    return try withUnsafePointer(to: &address) {
        try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
