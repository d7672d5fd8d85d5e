#if canImport(Glibc)
    import Glibc
#endif

/// Times as the event log's readers write them: UTC, with milliseconds cut (not rounded) as a clock shows them,
/// so that logs from machines in different zones, or from either side of a daylight-saving change, sort and
/// compare as they are. Written with `gmtime_r`: the daemon links no more of Foundation than its essentials.
public enum UTCTime {
    /// `2026-11-27T21:30:05.123Z` for `seconds` since 1970.
    public static func iso8601(_ seconds: Double) -> String {
        var whole = time_t((seconds * 1000).rounded(.down) / 1000)
        var fields = tm()
        gmtime_r(&whole, &fields)
        let date =
            "\(padded(Int(fields.tm_year) + 1900, 4))-\(padded(Int(fields.tm_mon) + 1, 2))-\(padded(Int(fields.tm_mday), 2))"
        return date + "T" + clock(seconds)
    }

    /// `21:30:05.123Z`: the time of day alone.
    public static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded(.down))
        let ofDay = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        return "\(padded(ofDay / 3_600_000, 2)):\(padded(ofDay / 60_000 % 60, 2)):\(padded(ofDay / 1000 % 60, 2))."
            + "\(padded(ofDay % 1000, 3))Z"
    }

    /// `value` in decimal, led by zeros to `width` digits.
    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
