import AudioSessionPolicy

/// The colours and shapes of a picture, in one place so the lanes and the legend cannot disagree.
enum TimelineStyle {
    /// A condition of the device drawn as a bar along its row.
    enum Band: Equatable, Sendable {
        case silentSwitch, screenLocked

        var colour: String {
            switch self {
            case .silentSwitch: "#5a5a5a"
            case .screenLocked: "#9c7a3c"
            }
        }
    }

    static let ink = "#1d2430"
    static let faint = "#8a929e"
    static let grid = "#e3e6ea"
    static let failed = "#d0021b"

    static func colour(of state: SessionState) -> String {
        switch state {
        case .active: "#3f9e5b"
        case .interrupted: "#e0803a"
        case .inactive: "#c9ced6"
        }
    }

    static let audible = "#6d9bdc"
    static let ducked = "#b5cdef"
    static let silent = "#7d8590"
    static let capturing = "#b0306a"

    /// Draws mark `kind` centred on (`x`, `y`), `size` across, with `title` on hover.
    static func mark(
        _ kind: TimelinePicture.MarkKind,
        x: Double,
        y: Double,
        size: Double,
        title: String,
        into xml: inout TimelineXML
    ) {
        let h = size / 2
        let n = TimelineXML.number
        func points(_ list: [(Double, Double)]) -> String {
            list.map { "\(n(x + $0.0)),\(n(y + $0.1))" }.joined(separator: " ")
        }
        let outline: [(String, String)] = [("stroke", "#ffffff"), ("stroke-width", "1")]
        switch kind {
        case .interruptionBegan:
            xml.shape(
                "polygon",
                [("points", points([(-h, -h), (h, -h), (0, h)])), ("fill", "#c0392b")] + outline,
                title: title
            )
        case .interruptionEndedMayResume:
            xml.shape(
                "polygon",
                [("points", points([(-h, h), (h, h), (0, -h)])), ("fill", "#23874a")] + outline,
                title: title
            )
        case .interruptionEndedNoResume:
            xml.shape(
                "polygon",
                [
                    ("points", points([(-h, h), (h, h), (0, -h)])), ("fill", "#ffffff"), ("stroke", "#23874a"),
                    ("stroke-width", "1.5"),
                ],
                title: title
            )
        case .routeChange:
            xml.shape(
                "polygon",
                [("points", points([(0, -h), (h, 0), (0, h), (-h, 0)])), ("fill", "#7b4fb0")] + outline,
                title: title
            )
        case .hintBegan:
            xml.shape(
                "circle",
                [("cx", n(x)), ("cy", n(y)), ("r", n(h * 0.85)), ("fill", "#d49a00")] + outline,
                title: title
            )
        case .hintEnded:
            xml.shape(
                "circle",
                [
                    ("cx", n(x)), ("cy", n(y)), ("r", n(h * 0.8)), ("fill", "#ffffff"), ("stroke", "#d49a00"),
                    ("stroke-width", "1.5"),
                ],
                title: title
            )
        case .mediaServices:
            xml.shape(
                "rect",
                [
                    ("x", n(x - h * 0.8)), ("y", n(y - h * 0.8)), ("width", n(h * 1.6)), ("height", n(h * 1.6)),
                    ("fill", "#333333"),
                ],
                title: title
            )
        case .switchMoved, .lockChanged:
            xml.shape(
                "rect",
                [("x", n(x - 1.5)), ("y", n(y - h)), ("width", "3"), ("height", n(size)), ("fill", ink)],
                title: title
            )
        case .portConnected:
            let d = "M\(n(x - h)) \(n(y))H\(n(x + h))M\(n(x)) \(n(y - h))V\(n(y + h))"
            xml.shape(
                "path",
                [("d", d), ("stroke", "#23874a"), ("stroke-width", "2.5"), ("fill", "none")],
                title: title
            )
        case .portDisconnected:
            let d = "M\(n(x - h)) \(n(y - h))L\(n(x + h)) \(n(y + h))M\(n(x - h)) \(n(y + h))L\(n(x + h)) \(n(y - h))"
            xml.shape(
                "path",
                [("d", d), ("stroke", "#c0392b"), ("stroke-width", "2.5"), ("fill", "none")],
                title: title
            )
        case .outputSelected:
            xml.shape("polygon", [("points", points([(-h, -h), (h, 0), (-h, h)])), ("fill", "#2f6db5")], title: title)
        }
    }
}
