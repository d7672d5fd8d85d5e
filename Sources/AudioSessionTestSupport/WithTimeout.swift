/// What `withTimeout` throws when its limit passes first.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing with `TimedOut` after `seconds`: a safety limit for a wait on an event, never the thing a
/// test checks.
public func withTimeout<Result: Sendable>(
    _ seconds: Double,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
