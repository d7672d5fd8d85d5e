import AudioSessionDaemonCore
import AudioSessionPolicy
import Testing

/// A stream origin hashes as the engine's numbers do (`NumberedKeyHash`): a server's stream indices, given out in
/// order, spread over a table's buckets as random hashes would, and a playback stream, a record stream and a
/// client's stream of the same number land apart.
@Suite struct StreamOriginHashTests {
    @Test func originsSpreadOverTheBucketsAndKindsLandApart() {
        for seed in [0, 1, 0x5eed, -42] {
            #expect(StreamOrigin.sinkInput(7)._rawHashValue(seed: seed) == NumberedKeyHash.of(7, seed: seed))
            let kinds: [(UInt32) -> StreamOrigin] = [
                { .sinkInput($0) }, { .sourceOutput($0) }, { .client(ClientID(rawValue: 3), Int($0)) },
            ]
            for kind in kinds {
                // About 640 of 1,024 for random hashes (NumberedKeyHashTests).
                let buckets = Set((1...1_000).map { kind($0)._rawHashValue(seed: seed) & 1_023 })
                #expect((560...720).contains(buckets.count), "seed \(seed): \(buckets.count) buckets")
            }
            let same = (1...1_000).filter {
                StreamOrigin.sinkInput($0)._rawHashValue(seed: seed)
                    == StreamOrigin.sourceOutput($0)._rawHashValue(seed: seed)
            }
            #expect(same.isEmpty)
        }
    }
}
