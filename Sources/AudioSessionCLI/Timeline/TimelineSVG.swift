import AudioSessionScenario

/// `replay --svg`: a replay's rows drawn as an SVG 1.1 picture, one lane per session over the steps, with the
/// reasons on hover. A pure function: no scripts, no fonts or images fetched, the same rows give the same bytes.
enum TimelineSVG {
    /// The picture of a replay, as SVG text.
    static func draw(_ result: ScenarioResult) -> String {
        draw(TimelinePicture(result))
    }

    static func draw(_ picture: TimelinePicture) -> String {
        let layout = TimelineLayout(picture)
        let n = TimelineXML.number
        var xml = TimelineXML()
        xml.raw(#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#)
        let root: [(String, String)] = [
            ("xmlns", "http://www.w3.org/2000/svg"), ("version", "1.1"),
            ("width", n(layout.width)), ("height", n(layout.height)),
            ("viewBox", "0 0 \(n(layout.width)) \(n(layout.height))"),
            ("font-family", "DejaVu Sans Mono, Menlo, Consolas, monospace"), ("fill", TimelineStyle.ink),
        ]
        xml.element("svg", root) { xml in
            xml.leaf("title", text: picture.title)
            xml.leaf(
                "desc",
                text: "A scenario replay drawn by audiosessionctl: one lane per session, one column per step. "
                    + picture.subtitle
            )
            xml.empty(
                "rect",
                [("x", "0"), ("y", "0"), ("width", n(layout.width)), ("height", n(layout.height)), ("fill", "#ffffff")]
            )
            heading(picture, layout, into: &xml)
            steps(picture, layout, into: &xml)
            device(picture, layout, into: &xml)
            for index in picture.lanes.indices { lane(index, of: picture, layout, into: &xml) }
            failedSteps(picture, layout, into: &xml)
            legend(layout, into: &xml)
        }
        return xml.text
    }

    private static func heading(_ picture: TimelinePicture, _ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        let margin = TimelineLayout.margin
        for (index, line) in layout.titleLines.enumerated() {
            let y = margin + TimelineLayout.titleSize + Double(index) * TimelineLayout.titleSize * 1.3
            xml.leaf(
                "text",
                [("x", n(margin)), ("y", n(y)), ("font-size", n(TimelineLayout.titleSize)), ("font-weight", "bold")],
                text: line
            )
        }
        let columns = Int((layout.width - 2 * margin) / (TimelineLayout.subtitleSize * TimelineLayout.characterWidth))
        let y =
            margin + Double(layout.titleLines.count) * TimelineLayout.titleSize * 1.3 + TimelineLayout.subtitleSize
            * 1.2
        xml.leaf(
            "text",
            [
                ("x", n(margin)), ("y", n(y)), ("font-size", n(TimelineLayout.subtitleSize)),
                ("fill", picture.passed ? TimelineStyle.faint : TimelineStyle.failed),
            ],
            text: TimelineLayout.fit(picture.subtitle + "; hover for the reasons", columns: columns)
        )
    }

    /// The step labels, read upwards, each with its details on hover, and the grid between the columns.
    private static func steps(_ picture: TimelinePicture, _ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        let size = TimelineLayout.stepLabelSize
        let bottom = layout.headerTop + layout.headerHeight - 4
        xml.element("g", [("class", "steps")]) { xml in
            for (index, column) in picture.columns.enumerated() {
                let (x, width) = layout.column(index)
                var details = ["step \(column.number): \(column.label)"]
                if let error = column.error { details.append("error: \(error)") }
                details += column.failures
                xml.element("g", []) { xml in
                    xml.leaf("title", text: details.joined(separator: "\n"))
                    xml.empty(
                        "rect",
                        [
                            ("x", n(x)), ("y", n(layout.headerTop)), ("width", n(width)),
                            ("height", n(layout.headerHeight)),
                            ("fill", column.failed ? TimelineStyle.failed : "#ffffff"),
                            ("fill-opacity", column.failed ? "0.1" : "0"),
                        ]
                    )
                    let textX = x + width / 2 + size * 0.3
                    xml.leaf(
                        "text",
                        [
                            ("x", n(textX)), ("y", n(bottom)), ("font-size", n(size)),
                            ("transform", "rotate(-90 \(n(textX)) \(n(bottom)))"),
                            (
                                "fill",
                                column.failed
                                    ? TimelineStyle.failed : column.isCheck ? TimelineStyle.faint : TimelineStyle.ink
                            ),
                        ],
                        text: TimelineLayout.stepLabel(column)
                    )
                }
            }
            for edge in layout.columnEdges {
                xml.empty(
                    "line",
                    [
                        ("x1", n(edge)), ("y1", n(layout.deviceTop)), ("x2", n(edge)), ("y2", n(layout.lanesBottom)),
                        ("stroke", TimelineStyle.grid), ("stroke-width", "1"),
                    ]
                )
            }
        }
    }

    /// A red frame around each failed step, over the lanes; its failures on hover.
    private static func failedSteps(_ picture: TimelinePicture, _ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        for (index, column) in picture.columns.enumerated() where column.failed {
            let (x, width) = layout.column(index)
            xml.shape(
                "rect",
                [
                    ("class", "failed"), ("x", n(x + 0.75)), ("y", n(layout.headerTop)), ("width", n(width - 1.5)),
                    ("height", n(layout.lanesBottom - layout.headerTop)), ("fill", "none"),
                    ("stroke", TimelineStyle.failed), ("stroke-width", "1.5"),
                ],
                title: (["step \(column.number) failed"] + column.failures).joined(separator: "\n")
            )
        }
    }
}
