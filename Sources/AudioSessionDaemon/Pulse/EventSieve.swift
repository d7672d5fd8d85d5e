import PulseBackend

/// Sifts the sound server's events on libpulse's thread, as each is read with its info, before the connection's
/// loop is given a turn for it: an event that brings the loop nothing new is kept here.
///
/// - A device's change that leaves it as the loop was last given it. A sink changes with its volume and its state
///   (running, idle, suspended), which the daemon does not read: about twice a call, a turn each for nothing.
///   What the daemon reads of a device (its name, active port, ports and properties) is all of its info, so an
///   info equal to the last one handed over is nothing new.
/// - A client's events. An app connects before it opens its stream, and names its process right after
///   (`application.process.id`): the process line (section 6b, `ProcessLine`) is read then, here, and kept until
///   the client goes, off the path from the stream's event to the orders that answer it. A process with another
///   client still connected has its line taken from that one, not read again (an app with several connections);
///   one whose clients all went has it from `ProcessLineMemory`, for one stat file (a phone app that connects for
///   each call: about six a connection otherwise).
/// - Card and module events, which the daemon does not use.
///
/// Only libpulse's thread touches it (the connection's listener), one event at a time; the loop reads the
/// process lines through `PulseService`'s lock, on that same thread.
struct EventSieve {
    enum Outcome: Equatable { case queue, keep }

    /// The last info handed to the loop of each device, by index; none once it went or an info was missing.
    private var sinks: [UInt32: PulseSink] = [:]
    private var sources: [UInt32: PulseSource] = [:]
    /// Each client's process and its process line, read as the client named its process.
    private(set) var clientLines: [UInt32: (processID: Int32, line: [Int32])] = [:]
    /// The lines read before, the processes' clients gone or not.
    private var lines: ProcessLineMemory

    init(lines: ProcessLineMemory = ProcessLineMemory()) {
        self.lines = lines
    }

    /// Whether `event`, with the info asked for as it was read (`info`; nil when none was asked for or the query
    /// failed), goes to the loop or is kept here.
    mutating func sift(_ event: PulseEvent, info: PulsePrefetch.Info?) -> Outcome {
        guard case .changed(let facility, let change, let index) = event else { return .queue }
        switch (facility, change, info) {
        case (.sink, _, _):
            let sink: PulseSink? = if case .sink(let sink?)? = info { sink } else { nil }
            return Self.sift(change, sink, at: index, lastHandedOver: &sinks)
        case (.source, _, _):
            let source: PulseSource? = if case .source(let source?)? = info { source } else { nil }
            return Self.sift(change, source, at: index, lastHandedOver: &sources)
        case (.client, .remove, _):
            clientLines[index] = nil
            return .keep
        case (.client, _, .client(let client?)?):
            if let processID = client.properties["application.process.id"].flatMap(Int32.init),
                clientLines[index]?.processID != processID
            {
                let known = clientLines.values.first { $0.processID == processID }
                clientLines[index] = (processID, known?.line ?? lines.line(of: processID))
            }
            return .keep
        case (.client, _, _), (.card, _, _), (.module, _, _):
            return .keep
        default:
            return .queue
        }
    }

    /// A device's event: a change whose info is the one last handed over stays; anything else goes, and its info
    /// is remembered (forgotten when it is gone or did not come).
    private static func sift<Info: Equatable>(
        _ change: PulseChange,
        _ info: Info?,
        at index: UInt32,
        lastHandedOver: inout [UInt32: Info]
    ) -> Outcome {
        guard let info, change != .remove else {
            lastHandedOver[index] = nil
            return .queue
        }
        if change == .change, lastHandedOver[index] == info { return .keep }
        lastHandedOver[index] = info
        return .queue
    }
}
