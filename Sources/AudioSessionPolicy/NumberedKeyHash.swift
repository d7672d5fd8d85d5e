/// A table key's hash from a number the caller gave out in order (a session's, a stream's, a timer's). The
/// standard `Hasher` (SipHash) guards a table against keys chosen to collide, at about 150 instructions a hash;
/// these keys are given out in order, not chosen by anyone who could aim them, and the engine and the daemon look
/// one up several hundred times a call, so they are mixed with the table's seed (random to each process and table)
/// by a few multiplications instead.
public enum NumberedKeyHash {
    /// SplitMix64's finalizer over the number and the seed: every bit of the input moves about half of the
    /// output's, so a table's buckets (the low bits) fill as with random hashes.
    @inlinable
    public static func of(_ value: UInt64, seed: Int) -> Int {
        var x = value ^ UInt64(truncatingIfNeeded: seed)
        x = (x ^ (x &>> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x &>> 27)) &* 0x94d0_49bb_1331_11eb
        return Int(truncatingIfNeeded: x ^ (x &>> 31))
    }
}

/// A key that is a number given out in order: its tables hash it by `NumberedKeyHash`.
public protocol NumberedKey: Hashable, RawRepresentable<Int> {}

extension NumberedKey {
    public func _rawHashValue(seed: Int) -> Int { NumberedKeyHash.of(UInt64(bitPattern: Int64(rawValue)), seed: seed) }
}

extension SessionID: NumberedKey {}
extension StreamID: NumberedKey {}
extension TimerID: NumberedKey {}
