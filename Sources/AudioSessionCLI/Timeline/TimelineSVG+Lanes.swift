/// The device strip and the session lanes.
extension TimelineSVG {
    /// The switch and the lock as bars where they hold, with a mark at each step that moved them, and the ports'
    /// changes.
    static func device(_ picture: TimelinePicture, _ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        let rowHeight = TimelineLayout.deviceRowHeight
        xml.element("g", [("class", "device")]) { xml in
            for (index, row) in picture.deviceRows.enumerated() {
                let top = layout.deviceTop + Double(index) * rowHeight
                xml.leaf(
                    "text",
                    [
                        ("x", n(TimelineLayout.margin + 6)), ("y", n(top + rowHeight / 2 + layout.laneKindSize * 0.35)),
                        ("font-size", n(layout.laneKindSize)), ("fill", TimelineStyle.faint),
                    ],
                    text: row.name
                )
                for run in runs(of: row.on) where run.value {
                    guard let band = row.band else { break }
                    let start = layout.column(run.first).x
                    let end = layout.columnEdges[run.last + 1]
                    let steps = "steps \(picture.columns[run.first].number)-\(picture.columns[run.last].number)"
                    xml.shape(
                        "rect",
                        [
                            ("x", n(start)), ("y", n(top + rowHeight * 0.3)), ("width", n(end - start)),
                            ("height", n(rowHeight * 0.4)), ("fill", band.colour),
                        ],
                        title: "\(row.name) \(row.whenOn), \(steps)"
                    )
                }
                marks(row.marks, y: top + rowHeight / 2, size: min(layout.markSize, rowHeight - 4), layout, into: &xml)
            }
        }
    }

    /// One session: its name, a run of shapes for each stretch of steps where nothing about it changed, and its
    /// notifications.
    static func lane(_ index: Int, of picture: TimelinePicture, _ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        let lane = picture.lanes[index]
        let laneTop = layout.laneTop(index)
        let top = laneTop + 2
        let height = layout.laneHeight - 4
        let strip = max(4, (height * 0.22).rounded())
        xml.element("g", [("class", "lane"), ("id", "lane-\(index + 1)")]) { xml in
            xml.leaf("title", text: "\(lane.name): \(lane.kind)")
            xml.empty(
                "line",
                [
                    ("x1", n(TimelineLayout.margin)), ("y1", n(laneTop)),
                    ("x2", n(layout.width - TimelineLayout.margin)),
                    ("y2", n(laneTop)), ("stroke", TimelineStyle.grid), ("stroke-width", "1"),
                ]
            )
            let nameY =
                layout.showsKind
                ? laneTop + layout.laneHeight / 2 - 1 : laneTop + layout.laneHeight / 2 + layout.laneNameSize * 0.35
            xml.leaf(
                "text",
                [
                    ("x", n(TimelineLayout.margin + 6)), ("y", n(nameY)), ("font-size", n(layout.laneNameSize)),
                    ("font-weight", "bold"),
                ],
                text: TimelineLayout.laneLabel(lane.name)
            )
            if layout.showsKind {
                xml.leaf(
                    "text",
                    [
                        ("x", n(TimelineLayout.margin + 6)),
                        ("y", n(laneTop + layout.laneHeight / 2 + layout.laneKindSize + 1)),
                        ("font-size", n(layout.laneKindSize)), ("fill", TimelineStyle.faint),
                    ],
                    text: lane.kind
                )
            }
            for run in runs(of: lane.cells) {
                guard let cell = run.value else { continue }
                let x = layout.column(run.first).x
                let width = layout.columnEdges[run.last + 1] - x
                let steps =
                    run.first == run.last
                    ? "step \(picture.columns[run.first].number)"
                    : "steps \(picture.columns[run.first].number)-\(picture.columns[run.last].number)"
                let title = (["\(lane.name), \(steps): \(cell.summary)"] + cell.reasons).joined(separator: "\n")
                xml.element("g", [("class", "run")]) { xml in
                    xml.leaf("title", text: title)
                    let area: (Double, Double, Double, Double) = (x, top, width, height)
                    rect(area, fill: "#f7f8fa", into: &xml)
                    rect((x, top, width, strip), fill: TimelineStyle.colour(of: cell.state), into: &xml)
                    verdict(cell, in: (x, top + strip + 1, width, height - strip - 1), into: &xml)
                    if cell.input != .none {
                        xml.empty(
                            "circle",
                            [
                                ("cx", n(x + width - 5)), ("cy", n(top + strip + (height - strip) / 2)), ("r", "2.5"),
                                ("fill", cell.input == .capturing ? TimelineStyle.capturing : "#ffffff"),
                                ("stroke", TimelineStyle.capturing), ("stroke-width", "1"),
                            ]
                        )
                    }
                }
            }
            routeLabels(lane, top: top + strip + 1, layout, into: &xml)
            marks(lane.marks, y: top + strip / 2, size: layout.markSize, layout, into: &xml)
        }
    }

    /// Output as a bar under the state: full for audible, half for ducked, a line for silent, none for none.
    private static func verdict(
        _ cell: TimelinePicture.Cell,
        in area: (x: Double, y: Double, width: Double, height: Double),
        into xml: inout TimelineXML
    ) {
        let bottom = area.y + area.height
        switch cell.output {
        case .audible: rect(area, fill: TimelineStyle.audible, into: &xml)
        case .ducked:
            rect(
                (area.x, bottom - area.height * 0.5, area.width, area.height * 0.5),
                fill: TimelineStyle.ducked,
                into: &xml
            )
        case .silent: rect((area.x, bottom - 2, area.width, 2), fill: TimelineStyle.silent, into: &xml)
        case .none: break
        }
    }

    /// The route's port where it changes, spelled out if there is room before the next change, else shortened.
    private static func routeLabels(
        _ lane: TimelinePicture.Lane,
        top: Double,
        _ layout: TimelineLayout,
        into xml: inout TimelineXML
    ) {
        let n = TimelineXML.number
        for run in runs(of: lane.cells.map { $0?.route }) {
            guard let port = run.value else { continue }
            let x = layout.column(run.first).x + 2
            let room = layout.columnEdges[run.last + 1] - x - 2
            let short = shortName(of: port)
            guard
                let label = [port, short].first(where: { TimelineLayout.width($0, size: layout.routeSize) <= room })
            else { continue }
            xml.leaf(
                "text",
                [("x", n(x)), ("y", n(top + layout.routeSize + 1)), ("font-size", n(layout.routeSize))],
                text: label
            )
        }
    }

    /// A port's name in a few letters, for a route that changes again soon.
    static func shortName(of port: String) -> String {
        switch port {
        case "speaker": "spk"
        case "receiver": "rcv"
        case "headphones": "hp"
        case "headset": "hs"
        case "bluetoothA2DP": "a2dp"
        case "bluetoothHFP": "hfp"
        case "usbAudio": "usb"
        case "lineOut": "line"
        case "carAudio": "car"
        case "builtInMic": "mic"
        case "headsetMic": "hsmic"
        case "lineIn": "in"
        default: String(port.prefix(4))
        }
    }

    /// Marks at their columns' middles, several in one column side by side.
    static func marks(
        _ marks: [TimelinePicture.Mark],
        y: Double,
        size: Double,
        _ layout: TimelineLayout,
        into xml: inout TimelineXML
    ) {
        for run in runs(of: marks.map(\.column)) {
            let (x, width) = layout.column(run.value)
            let count = run.last - run.first + 1
            for (offset, mark) in marks[run.first...run.last].enumerated() {
                let centre = x + width / 2 + (Double(offset) - Double(count - 1) / 2) * (size + 1)
                TimelineStyle.mark(mark.kind, x: centre, y: y, size: size, title: mark.text, into: &xml)
            }
        }
    }

    static func rect(
        _ area: (x: Double, y: Double, width: Double, height: Double),
        fill: String,
        into xml: inout TimelineXML
    ) {
        let n = TimelineXML.number
        xml.empty(
            "rect",
            [("x", n(area.x)), ("y", n(area.y)), ("width", n(area.width)), ("height", n(area.height)), ("fill", fill)]
        )
    }

    /// Stretches of equal neighbours: first and last index of each, and its value.
    static func runs<Value: Equatable>(of values: [Value]) -> [(first: Int, last: Int, value: Value)] {
        var result: [(first: Int, last: Int, value: Value)] = []
        for (index, value) in values.enumerated() {
            if let last = result.last, last.value == value, last.last == index - 1 {
                result[result.count - 1].last = index
            } else {
                result.append((index, index, value))
            }
        }
        return result
    }
}
