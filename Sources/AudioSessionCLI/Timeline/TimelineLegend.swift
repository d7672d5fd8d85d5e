/// The key under the lanes: a sample of each colour and mark with what it means, laid out in rows that wrap at the
/// picture's width.
struct TimelineLegend: Sendable {
    /// What a legend entry shows before its words.
    enum Symbol: Equatable, Sendable {
        case state(SessionStateSample)
        case verdict(VerdictSample)
        case mark(TimelinePicture.MarkKind)
        case band(TimelineStyle.Band)
        case failedStep
        case route
    }

    enum SessionStateSample: Equatable, Sendable { case active, interrupted, inactive }
    enum VerdictSample: Equatable, Sendable { case audible, ducked, silent, capturing }

    struct Item: Equatable, Sendable {
        var symbol: Symbol
        var text: String
        var width: Double { Self.symbolWidth + TimelineLayout.width(text, size: TimelineLayout.legendSize) + 14 }
        static let symbolWidth = 18.0
    }

    /// An item and where its symbol's left edge and its row's middle are.
    struct Placed: Sendable {
        var item: Item
        var x: Double
        var y: Double
    }

    let placed: [Placed]
    let top: Double
    let bottom: Double

    /// The items placed in rows from `top`, each row as many as fit in `width` (starting at the margin).
    init(items: [Item], top: Double, width: Double) {
        var placed: [Placed] = []
        var x = 0.0
        var row = 0
        for item in items {
            if x > 0 && x + item.width > width {
                row += 1
                x = 0
            }
            let middle = top + 16 + (Double(row) + 0.5) * TimelineLayout.legendRowHeight
            placed.append(Placed(item: item, x: TimelineLayout.margin + x, y: middle))
            x += item.width
        }
        self.placed = placed
        self.top = top
        self.bottom = top + 16 + Double(row + 1) * TimelineLayout.legendRowHeight
    }

    /// Every entry, whether or not a picture uses it: the same key on every picture is easier to learn.
    static let items: [Item] = {
        [
            Item(symbol: .state(.active), text: "active"),
            Item(symbol: .state(.interrupted), text: "interrupted"),
            Item(symbol: .state(.inactive), text: "inactive"),
            Item(symbol: .verdict(.audible), text: "audible"),
            Item(symbol: .verdict(.ducked), text: "ducked"),
            Item(symbol: .verdict(.silent), text: "silent"),
            Item(symbol: .verdict(.capturing), text: "capturing (hollow: muted)"),
            Item(symbol: .route, text: "route, where it changes"),
            Item(symbol: .mark(.interruptionBegan), text: "interruption began"),
            Item(symbol: .mark(.interruptionEndedMayResume), text: "ended, should resume"),
            Item(symbol: .mark(.interruptionEndedNoResume), text: "ended, no resume"),
            Item(symbol: .mark(.routeChange), text: "route change"),
            Item(symbol: .mark(.hintBegan), text: "hint: silence secondary"),
            Item(symbol: .mark(.hintEnded), text: "hint ends"),
            Item(symbol: .mark(.mediaServices), text: "sound server lost/reset"),
            Item(symbol: .band(.silentSwitch), text: "switch on silent"),
            Item(symbol: .band(.screenLocked), text: "screen locked"),
            Item(symbol: .mark(.switchMoved), text: "switch or lock moved"),
            Item(symbol: .mark(.portConnected), text: "port connected"),
            Item(symbol: .mark(.portDisconnected), text: "port disconnected"),
            Item(symbol: .mark(.outputSelected), text: "output selected"),
            Item(symbol: .failedStep, text: "failed step"),
        ]
    }()
}
