import Testing

@testable import AudioSessionPolicy

/// Sessions, streams and timers hash by `NumberedKeyHash` instead of the standard `Hasher`: equal keys must hash
/// equal in a table, and the numbers given out in order must spread over a table's buckets as evenly as random
/// hashes would, whatever the table's seed.
@Suite struct NumberedKeyHashTests {
    @Test func equalKeysHashEqualAndTablesFindThem() {
        for seed in [0, 1, -1, 0x5eed, Int.max] {
            // The tables use this hash, not the standard one's (which would pass the rest of these tests too).
            #expect(SessionID(7)._rawHashValue(seed: seed) == NumberedKeyHash.of(7, seed: seed))
            #expect(StreamID(7)._rawHashValue(seed: seed) == NumberedKeyHash.of(7, seed: seed))
            #expect(TimerID(rawValue: 7)._rawHashValue(seed: seed) == NumberedKeyHash.of(7, seed: seed))
            #expect(SessionID(-7)._rawHashValue(seed: seed) == SessionID(-7)._rawHashValue(seed: seed))
        }
        var sessions = Set((1...5_000).map { SessionID($0) })
        for id in stride(from: 2, through: 5_000, by: 2) { sessions.remove(SessionID(id)) }
        #expect(sessions.count == 2_500)
        #expect(sessions.contains(SessionID(4_999)) && !sessions.contains(SessionID(4_998)))
        let timers = Dictionary(uniqueKeysWithValues: (0..<1_000).map { (TimerID(rawValue: $0), $0) })
        #expect((0..<1_000).allSatisfy { timers[TimerID(rawValue: $0)] == $0 })
    }

    /// A thousand numbers in a row over the 1,024 buckets a table of their size uses (the hash's low bits): random
    /// hashes fill about 640 (1,024 × (1 − e^−1000/1024)); a mix that kept only the seed would fill one, one that
    /// kept the number as it is, all of them in a row.
    @Test func numbersInARowSpreadOverTheBucketsAsRandomHashesWould() {
        for seed in [0, 1, 0x5eed, -42] {
            let buckets = Set((1...1_000).map { SessionID($0)._rawHashValue(seed: seed) & 1_023 })
            #expect((560...720).contains(buckets.count), "seed \(seed): \(buckets.count) buckets")
            // Another seed, another table: the same number lands elsewhere.
            let moved = (1...1_000).filter {
                SessionID($0)._rawHashValue(seed: seed) != SessionID($0)._rawHashValue(seed: seed &+ 1)
            }
            #expect(moved.count == 1_000)
        }
    }
}
