#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs blocking work (a device write, a blocking socket call, a `sleep`) on a thread of its own and
/// waits for it without holding a thread of Swift concurrency's pool. That pool has as many threads as the
/// machine has cores (two on the project's machines): blocking code holding them starves every task of the
/// process, an in-process daemon's included, which then cannot answer the very call that blocks (a deadlock
/// until a read times out). Blocking calls of the project's own are marked `noasync`, so the compiler sends them
/// here (docs/TESTING.md, "The pool").
public func onThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        startThread { continuation.resume(with: Swift.Result { try work() }) }
    }
}

/// Runs `body` on a new thread, named `name` (at most 15 bytes show in `ps`), not waited for. A POSIX thread,
/// not Foundation's `Thread`: the daemon links no more of Foundation than its essentials. Should the system
/// refuse a thread (its limit reached), `body` runs on the caller's thread instead: late rather than never.
public func startThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) {
    final class Start {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: name, body: body))
    var thread = pthread_t()
    let created = pthread_create(
        &thread,
        nil,
        { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            if let name = start.name { nameThisThread(name) }
            start.body()
            return nil
        },
        start.toOpaque()
    )
    guard created == 0 else {
        start.release()
        body()
        return
    }
    pthread_detach(thread)
}

/// Names the calling thread, as `top -H` and `/proc` show it: by its `comm` file (`pthread_setname_np` is a GNU
/// extension Swift's Glibc module leaves out).
private func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
