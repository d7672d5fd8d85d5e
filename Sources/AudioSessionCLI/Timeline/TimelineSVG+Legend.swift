/// The key under the lanes.
extension TimelineSVG {
    static func legend(_ layout: TimelineLayout, into xml: inout TimelineXML) {
        let n = TimelineXML.number
        let size = TimelineLayout.legendSize
        xml.element("g", [("class", "legend")]) { xml in
            xml.leaf(
                "text",
                [
                    ("x", n(TimelineLayout.margin)), ("y", n(layout.legend.top + size)), ("font-size", n(size)),
                    ("font-weight", "bold"), ("fill", TimelineStyle.faint),
                ],
                text: "key"
            )
            for placed in layout.legend.placed {
                symbol(placed.item.symbol, x: placed.x, y: placed.y, text: placed.item.text, into: &xml)
                xml.leaf(
                    "text",
                    [
                        ("x", n(placed.x + TimelineLegend.Item.symbolWidth + 2)), ("y", n(placed.y + size * 0.35)),
                        ("font-size", n(size)),
                    ],
                    text: placed.item.text
                )
            }
        }
    }

    /// A sample 14 wide, its left edge at `x`, centred on `y`.
    private static func symbol(
        _ symbol: TimelineLegend.Symbol,
        x: Double,
        y: Double,
        text: String,
        into xml: inout TimelineXML
    ) {
        let n = TimelineXML.number
        switch symbol {
        case .state(let state):
            let colour: String =
                switch state {
                case .active: TimelineStyle.colour(of: .active)
                case .interrupted: TimelineStyle.colour(of: .interrupted)
                case .inactive: TimelineStyle.colour(of: .inactive)
                }
            rect((x, y - 4, 14, 8), fill: colour, into: &xml)
        case .verdict(.audible): rect((x, y - 5, 14, 10), fill: TimelineStyle.audible, into: &xml)
        case .verdict(.ducked): rect((x, y, 14, 5), fill: TimelineStyle.ducked, into: &xml)
        case .verdict(.silent): rect((x, y + 3, 14, 2), fill: TimelineStyle.silent, into: &xml)
        case .verdict(.capturing):
            xml.empty(
                "circle",
                [("cx", n(x + 7)), ("cy", n(y)), ("r", "3"), ("fill", TimelineStyle.capturing)]
            )
        case .route:
            xml.leaf("text", [("x", n(x)), ("y", n(y + 3)), ("font-size", "8")], text: "spk")
        case .mark(let kind):
            TimelineStyle.mark(kind, x: x + 7, y: y, size: 10, title: text, into: &xml)
        case .band(let band):
            rect((x, y - 3, 14, 6), fill: band.colour, into: &xml)
        case .failedStep:
            xml.empty(
                "rect",
                [
                    ("x", n(x + 2)), ("y", n(y - 6)), ("width", "10"), ("height", "12"), ("fill", "none"),
                    ("stroke", TimelineStyle.failed), ("stroke-width", "1.5"),
                ]
            )
        }
    }
}
