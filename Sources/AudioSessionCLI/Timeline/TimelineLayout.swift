/// Where everything of a picture goes. All text is monospace, so its width is known without a font: a character
/// is `characterWidth` of the font size (DejaVu Sans Mono's is 0.602), a wide one twice that. Lanes get lower and
/// their labels smaller as sessions are added, so that 2 and 20 sessions both read well.
struct TimelineLayout: Sendable {
    static let characterWidth = 0.62
    static let margin = 12.0
    static let titleSize = 15.0
    static let subtitleSize = 11.0
    static let stepLabelSize = 10.0
    static let deviceRowHeight = 15.0
    static let legendSize = 10.0
    static let legendRowHeight = 17.0
    static let stepWidth = 26.0
    static let checkWidth = 14.0
    /// Lane names longer than this are cut, with the whole name on hover.
    static let longestLaneName = 28
    /// Step labels longer than this are cut, with the whole step on hover.
    static let longestStepLabel = 40
    static let narrowestPicture = 600.0

    let laneHeight: Double
    let laneNameSize: Double
    let laneKindSize: Double
    /// Whether a lane is high enough for its category under its name.
    let showsKind: Bool
    let routeSize: Double
    let markSize: Double
    let labelWidth: Double
    let width: Double
    let titleLines: [String]
    let headerTop: Double
    let headerHeight: Double
    let deviceTop: Double
    let lanesTop: Double
    let lanesBottom: Double
    let legend: TimelineLegend
    let height: Double
    /// The left edge of each column, and one more: the right edge of the last.
    let columnEdges: [Double]

    init(_ picture: TimelinePicture) {
        let sessions = max(picture.lanes.count, 1)
        let laneHeight = min(44, max(20, (300 / Double(sessions)).rounded(.down)))
        let nameSize = min(13, max(10, (laneHeight * 0.42).rounded()))
        let kindSize = nameSize - 2
        let showsKind = laneHeight >= 32
        self.laneHeight = laneHeight
        laneNameSize = nameSize
        laneKindSize = kindSize
        self.showsKind = showsKind
        routeSize = min(10, max(7, (laneHeight * 0.32).rounded()))
        markSize = min(11, max(7, (laneHeight * 0.4).rounded()))

        let names = picture.lanes.map { Self.width(Self.laneLabel($0.name), size: nameSize) }
        let kinds = showsKind ? picture.lanes.map { Self.width($0.kind, size: kindSize) } : []
        let rows = picture.deviceRows.map { Self.width($0.name, size: kindSize) }
        let labelWidth = ((names + kinds + rows).max() ?? 40) + 16
        self.labelWidth = labelWidth

        var edges = [Self.margin + labelWidth]
        for column in picture.columns {
            edges.append(edges[edges.count - 1] + (column.isCheck ? Self.checkWidth : Self.stepWidth))
        }
        columnEdges = edges
        let contentWidth = edges[edges.count - 1] + Self.margin
        let legendItems = TimelineLegend.items
        let widestItem = legendItems.map(\.width).max() ?? 0
        let width = max(Self.narrowestPicture, contentWidth, widestItem + 2 * Self.margin).rounded(.up)
        self.width = width

        let titleColumns = Int((width - 2 * Self.margin) / (Self.titleSize * Self.characterWidth))
        titleLines = Self.wrap(picture.title, columns: titleColumns, lines: 3)
        let headerTop = Self.margin + Double(titleLines.count) * Self.titleSize * 1.3 + Self.subtitleSize * 1.5 + 8
        self.headerTop = headerTop
        let longestLabel = picture.columns.map { Self.width(Self.stepLabel($0), size: Self.stepLabelSize) }.max()
        headerHeight = (longestLabel ?? 0) + 8
        deviceTop = headerTop + headerHeight + 4
        lanesTop = deviceTop + Double(picture.deviceRows.count) * Self.deviceRowHeight + 6
        lanesBottom = lanesTop + Double(picture.lanes.count) * laneHeight
        legend = TimelineLegend(items: legendItems, top: lanesBottom + 14, width: width - 2 * Self.margin)
        height = (legend.bottom + Self.margin).rounded(.up)
    }

    /// The left edge of column `index` and its width.
    func column(_ index: Int) -> (x: Double, width: Double) {
        (columnEdges[index], columnEdges[index + 1] - columnEdges[index])
    }

    /// The top of lane `index`.
    func laneTop(_ index: Int) -> Double { lanesTop + Double(index) * laneHeight }

    /// A column's label, read upwards above it: "12 activate phone", "13 activate game: isBusy"; a long one is
    /// cut (its whole text is on hover).
    static func stepLabel(_ column: TimelinePicture.Column) -> String {
        let error = column.errorCode.map { ": \($0)" } ?? ""
        let label = fit("\(column.number) \(column.label)\(error)", columns: longestStepLabel)
        return label + (column.failed ? " FAILED" : "")
    }

    /// A lane's name as shown: cut to `longestLaneName` characters.
    static func laneLabel(_ name: String) -> String {
        fit(name, columns: longestLaneName)
    }

    /// How wide `text` is in the monospace font at `size`.
    static func width(_ text: String, size: Double) -> Double {
        Double(columns(text)) * size * characterWidth
    }

    /// How many character cells `text` takes: a wide character (CJK, emoji) two.
    static func columns(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 2 : 1) }
    }

    /// `text` as is if it takes at most `limit` cells, else cut and ended with "…".
    static func fit(_ text: some StringProtocol, columns limit: Int) -> String {
        guard columns(text) > limit else { return String(text) }
        var cut = ""
        for scalar in text.unicodeScalars {
            guard columns(cut) + columns(String(scalar)) <= max(0, limit - 1) else { break }
            cut.unicodeScalars.append(scalar)
        }
        return cut + "…"
    }

    /// `text` in lines of at most `columns` cells, broken between words, at most `lines` of them (the last cut
    /// with "…" if the text goes on).
    static func wrap(_ text: String, columns limit: Int, lines: Int) -> [String] {
        var result: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if columns(candidate) <= limit || current.isEmpty {
                current = candidate
            } else {
                result.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { result.append(current) }
        result = result.map { fit($0, columns: limit) }
        if result.count > lines {
            result = Array(result.prefix(lines))
            result[lines - 1] = fit(result[lines - 1] + " …", columns: limit)
        }
        return result.isEmpty ? [""] : result
    }
}
