/// Rows of text in aligned columns, two spaces apart, the last column unpadded.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    /// The table's lines, each indented by `indent`. `paint` decorates a cell of a row (not the header) after
    /// its width is measured: colour does not shift the columns.
    func lines(indent: String = "  ", paint: (_ column: Int, _ text: String) -> String = { $1 }) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.enumerated().map { index, row in
            let cells = row.indices.map { column in
                let text = index == 0 ? row[column] : paint(column, row[column])
                let padding = column == row.count - 1 ? 0 : widths[column] - row[column].count
                return text + String(repeating: " ", count: padding)
            }
            return indent + cells.joined(separator: "  ")
        }
    }
}
