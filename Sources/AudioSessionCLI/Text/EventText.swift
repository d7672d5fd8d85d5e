import AudioSessionProtocol

/// A notification from the daemon in one line, in the words of the scenario files, with its reason:
/// `interruption began (interrupted by phone (A6))`.
enum EventText {
    static func describe(_ event: Event) -> String {
        let what: String
        switch event.event {
        case .interruption:
            what = "interruption \(event.type ?? "?")" + (event.shouldResume.map { " shouldResume=\($0)" } ?? "")
        case .routeChange:
            let from = event.previousRoute.map(StatusView.routeText) ?? "?"
            let to = event.currentRoute.map(StatusView.routeText) ?? "?"
            what = "routeChange \(event.reason?.rawValue ?? "?"): \(from) -> \(to)"
        case .silenceSecondaryAudioHint:
            what = "silenceSecondaryAudioHint \(event.type ?? "?")"
        case .mediaServicesWereLost, .mediaServicesWereReset, .status:
            what = event.event.rawValue
        case .streamVerdict:
            what = "stream \(event.stream.map(String.init) ?? "?") \(event.verdict ?? "?")"
        }
        return what + (event.because.map { " (\($0))" } ?? "")
    }
}
