import Foundation
import PulseBackend

/// An independent client of a sound server that notes when each sink input appears and when each watched one
/// changes, as any other client would see it. Events carry no properties, so a change is confirmed by querying
/// the streams; to load the server as little as possible while a contender works, that query is made only once
/// every stream awaited has reported a change, and the change is dated by the event that announced it.
final class Observer: @unchecked Sendable {
    typealias Instant = ContinuousClock.Instant

    let connection: PulseConnection
    private let lock = NSLock()
    private var appeared: [UInt32: Instant] = [:]
    /// When each watched stream's change events were read.
    private var changes: [UInt32: [Instant]] = [:]
    private var removed: Set<UInt32> = []
    private var reader: Task<Void, Never>?

    init(server: String) async throws {
        connection = PulseConnection(server: server, applicationName: "benchmark-observer")
        try await connection.connect()
        let events = connection.events
        reader = Task.detached { [unowned self] in
            for await event in events { self.take(event, at: .now) }
        }
    }

    func close() {
        reader?.cancel()
        connection.close()
    }

    private func take(_ event: PulseEvent, at now: Instant) {
        guard case .changed(.sinkInput, let change, let index) = event else { return }
        lock.withLock {
            switch change {
            case .new: appeared[index] = now
            case .change: changes[index]?.append(now)
            case .remove:
                appeared[index] = nil
                changes[index] = nil
                removed.insert(index)
            }
        }
    }

    func watch(_ index: UInt32) { lock.withLock { changes[index] = changes[index] ?? [] } }

    func unwatchAll() { lock.withLock { changes.removeAll() } }

    /// Waits until the server has reported every stream of `indices` gone.
    func waitUntilGone(_ indices: [UInt32], timeout: Duration = .seconds(5)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !lock.withLock({ removed.isSuperset(of: indices) }) {
            guard ContinuousClock.now < deadline else { throw BenchError("streams were not removed within \(timeout)") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// When the server's `new` event for `index` was read, waiting up to `timeout` for it.
    func appearance(of index: UInt32, timeout: Duration = .seconds(2)) async -> Instant? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let time = lock.withLock({ appeared[index] }) { return time }
            try? await Task.sleep(for: .microseconds(500))
        }
        return nil
    }

    /// Waits until every stream of `indices` shows `silenced` through changes reported after `start`; returns when
    /// the last of them changed (the first change event not yet ruled out by a query), or nil after `timeout`.
    func allShow(
        silenced: Bool, _ indices: [UInt32], after start: Instant, timeout: Duration = .seconds(5)
    ) async -> Instant? {
        let deadline = ContinuousClock.now + timeout
        var confirmed: [UInt32: Instant] = [:]
        var ruledOut: [UInt32: Int] = [:]  // change events already covered by a query that showed otherwise
        while ContinuousClock.now < deadline {
            let seen: [UInt32: [Instant]] = lock.withLock {
                Dictionary(uniqueKeysWithValues: indices.map { ($0, (changes[$0] ?? []).filter { $0 >= start }) })
            }
            let open = indices.filter { confirmed[$0] == nil }
            if open.allSatisfy({ (seen[$0]?.count ?? 0) > (ruledOut[$0] ?? 0) }) {
                guard let states = try? await state(of: open) else { return nil }
                for index in open {
                    let events = seen[index] ?? []
                    if states[index] == silenced {
                        confirmed[index] = events[ruledOut[index] ?? 0]
                    } else {
                        ruledOut[index] = events.count
                    }
                }
                if confirmed.count == indices.count { return confirmed.values.max() }
            }
            try? await Task.sleep(for: .microseconds(500))
        }
        return nil
    }

    /// Whether each stream of `indices` is silent now (a single query for many): muted (module-role-cork, the
    /// reactor) or at volume 0 (audiosessiond's silence, a gain of 0 on the user's volume).
    func state(of indices: [UInt32]) async throws -> [UInt32: Bool] {
        if indices.count == 1, let input = try await connection.sinkInput(indices[0]) {
            return [indices[0]: Self.isSilenced(input)]
        }
        let wanted = Set(indices)
        var states: [UInt32: Bool] = [:]
        for input in try await connection.sinkInputs() where wanted.contains(input.index) {
            states[input.index] = Self.isSilenced(input)
        }
        return states
    }

    static func isSilenced(_ input: PulseSinkInput) -> Bool { input.muted || input.volume.average == 0 }
}
