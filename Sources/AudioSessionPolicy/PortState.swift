/// The available ports, in connection order (the last is the most recent), and the user's output selection.
struct PortState: Sendable, Equatable {
    var outputs: [Port]
    var inputs: [Port]
    /// R3: the port the user picked, until the next connect or its own disconnect.
    var selection: Port?

    func isAvailable(_ port: Port) -> Bool { outputs.contains(port) || inputs.contains(port) }

    /// R2: a port (and what comes with it) becomes available, or the most recent if it was already.
    mutating func connect(_ port: Port) {
        for added in [port, port.companionInput].compactMap({ $0 }) {
            if added.isOutput { Self.moveToEnd(added, in: &outputs) }
            if added.isInput { Self.moveToEnd(added, in: &inputs) }
        }
    }

    /// R4: a port (and what comes with it) is gone.
    mutating func disconnect(_ port: Port) {
        for removed in [port, port.companionInput].compactMap({ $0 }) {
            outputs.removeAll { $0 == removed }
            inputs.removeAll { $0 == removed }
        }
        if selection == port { selection = nil }
    }

    private static func moveToEnd(_ port: Port, in list: inout [Port]) {
        list.removeAll { $0 == port }
        list.append(port)
    }
}
