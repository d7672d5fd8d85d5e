import Foundation

/// Milliseconds between two instants.
func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
}

/// A set of timings in milliseconds, summarized by nearest-rank percentiles (with fewer than 100 samples p99 is
/// the slowest one; with 200, the 198th).
struct Timings {
    var values: [Double] = []
    var failures = 0

    mutating func add(_ value: Double?) {
        if let value { values.append(value) } else { failures += 1 }
    }

    func percentile(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    var p50: Double? { percentile(50) }
    var p99: Double? { percentile(99) }
    var count: Int { values.count }
}

func median(_ values: [Double]) -> Double? { Timings(values: values).p50 }

func ms(_ value: Double?) -> String {
    guard let value else { return "n/a" }
    return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.1f ms", value)
}

func us(_ value: Double?) -> String {
    guard let value else { return "n/a" }
    return String(format: "%.0f µs", value * 1000)
}

func ratio(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b, b > 0 else { return nil }
    return a / b
}

func times(_ value: Double?) -> String {
    guard let value else { return "n/a" }
    return value < 10 ? String(format: "%.2f×", value) : String(format: "%.0f×", value)
}

/// A table of rows, printed with each column as wide as its widest cell.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: " | ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// Progress on standard error, so standard output holds only the results.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("[bench] \(text)\n".utf8))
}
