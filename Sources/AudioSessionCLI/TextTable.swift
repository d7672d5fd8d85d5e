/// Rows of text in aligned columns, two spaces apart, the last column unpadded.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    /// The table's lines, each indented by `indent`.
    func lines(indent: String = "  ") -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let cells = row.indices.map { column in
                column == row.count - 1
                    ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            return indent + cells.joined(separator: "  ")
        }
    }
}
