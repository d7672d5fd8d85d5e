import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The times `watch` writes: ISO 8601 in UTC with milliseconds, `2026-11-25T10:15:30.123Z`. UTC because logs
/// from machines in different zones, or from either side of a daylight-saving change, then sort and compare as
/// they are.
enum Timestamp {
    static func iso8601(_ date: Date = Date()) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var fields = tm()
        gmtime_r(&seconds, &fields)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(fields.tm_year) + 1900,
            Int(fields.tm_mon) + 1,
            Int(fields.tm_mday),
            Int(fields.tm_hour),
            Int(fields.tm_min),
            Int(fields.tm_sec),
            Int(milliseconds % 1000)
        )
    }
}
