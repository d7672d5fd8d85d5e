import AudioSessionConfiguration
import YAMLBackend

extension StrictYAML {
    /// A `wait:` duration in whole milliseconds: `600ms`, `2s`, `1.5s`, `0ms`. The unit is required, since a bare
    /// `600` could be read as either and the engine's timers count milliseconds.
    func duration(_ node: YAMLNode, _ label: String) throws -> Int {
        let text = try string(node, label)
        let expected = "expected a duration such as 600ms, 2s or 1.5s"
        if text.hasPrefix("-") {
            throw error(at: node, "\(label): '\(text)' is negative; a wait must be 0ms or more")
        }
        guard let milliseconds = Self.milliseconds(inDuration: text) else {
            throw error(at: node, "\(label): '\(text)' is not a duration; \(expected)")
        }
        return milliseconds
    }

    /// Nil unless `text` is decimal digits (at most 9, so that nothing overflows), an optional fraction, and `ms`
    /// or `s`, naming a whole number of milliseconds. Decimal arithmetic, so that `0.1s` is exactly 100 ms.
    static func milliseconds(inDuration text: String) -> Int? {
        let number: Substring
        let scale: Int
        if text.hasSuffix("ms") {
            (number, scale) = (text.dropLast(2), 1)
        } else if text.hasSuffix("s") {
            (number, scale) = (text.dropLast(1), 1000)
        } else {
            return nil
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard let whole = parts.first, isDigits(whole), whole.count <= 9, let wholeValue = Int(whole) else {
            return nil
        }
        guard parts.count == 2 else { return wholeValue * scale }
        guard isDigits(parts[1]) else { return nil }
        var fraction = String(parts[1])
        while fraction.hasSuffix("0") { fraction.removeLast() }
        // A fraction of a millisecond cannot be waited for: `1.5ms` and `0.0001s` are errors.
        let digitsPerUnit = scale == 1000 ? 3 : 0
        guard fraction.count <= digitsPerUnit else { return nil }
        let fractionValue = Int(fraction + String(repeating: "0", count: digitsPerUnit - fraction.count)) ?? 0
        return wholeValue * scale + fractionValue
    }
}
