import AudioSessionPolicy

/// How real devices become the ports a scenario lists. The daemon learns of a port when a sink or source that
/// is that port appears; like the engine, it takes `headset` to bring `headsetMic`, and `bluetoothHFP` and
/// `usbAudio` to be both an output and an input, whichever device showed them. So the order devices are
/// plugged in decides the daemon's port lists, and some literal `device:` lists cannot be made at all.
enum LivePorts {
    /// One device to plug in: a sink (an output port) or a source (an input port).
    struct Device: Hashable, Sendable, CustomStringConvertible {
        var port: Port
        var isSink: Bool
        var description: String { "\(isSink ? "sink" : "source") \(port.rawValue)" }
    }

    /// The port lists as the daemon keeps them: in connection order, the last the most recent.
    struct Lists: Hashable, Sendable, CustomStringConvertible {
        var outputs: [Port] = []
        var inputs: [Port] = []

        /// A device appeared: its port, and what comes with it, become the most recent (R2).
        mutating func connect(_ port: Port) {
            for added in [port] + (port == .headset ? [.headsetMic] : []) {
                if added.isOutput { Self.moveToEnd(added, in: &outputs) }
                if added.isInput { Self.moveToEnd(added, in: &inputs) }
            }
        }

        /// A port left, and what came with it (R4).
        mutating func disconnect(_ port: Port) {
            let removed = [port] + (port == .headset ? [.headsetMic] : [])
            outputs.removeAll { removed.contains($0) }
            inputs.removeAll { removed.contains($0) }
        }

        private static func moveToEnd(_ port: Port, in list: inout [Port]) {
            list.removeAll { $0 == port }
            list.append(port)
        }

        var description: String {
            "outputs [\(outputs.map(\.rawValue).joined(separator: ", "))], inputs [\(inputs.map(\.rawValue).joined(separator: ", "))]"
        }
    }

    /// The order to plug in one sink per output and one source per input so that the daemon ends with exactly
    /// these lists; nil when no order does (`outputs: [headset]` without `headsetMic` in the inputs, say).
    static func plugOrder(for wanted: Lists) -> [Device]? {
        let sinks = wanted.outputs.map { Device(port: $0, isSink: true) }
        let sources = wanted.inputs.map { Device(port: $0, isSink: false) }
        return interleavings(sinks[...], sources[...]).first { order in
            var lists = Lists()
            for device in order { lists.connect(device.port) }
            return lists == wanted
        }
    }

    /// Every merge of the two sequences that keeps each one's order, sinks-first merges first.
    private static func interleavings(_ first: ArraySlice<Device>, _ second: ArraySlice<Device>) -> [[Device]] {
        guard let head = first.first else { return [Array(second)] }
        guard let other = second.first else { return [Array(first)] }
        return interleavings(first.dropFirst(), second).map { [head] + $0 }
            + interleavings(first, second.dropFirst()).map { [other] + $0 }
    }

    /// The devices `connect: PORT` plugs in, in order: the port's own, then what comes with it. The device the
    /// port's own event already brought along (the source of a `bluetoothHFP` sink, `headsetMic` with a
    /// headset) is plugged in only when absent, so the daemon sees one connection of the port, as the engine does.
    static func devices(connecting port: Port) -> [Device] {
        var devices = [Device(port: port, isSink: port.isOutput)]
        if port == .headset { devices.append(Device(port: .headsetMic, isSink: false)) }
        if port.isOutput && port.isInput { devices.append(Device(port: port, isSink: false)) }
        return devices
    }

    /// Properties that make a null sink or source named otherwise be taken for `port` by the daemon's standard
    /// port rules: a second device of a port already there (connecting an available port makes it the most
    /// recent). Nil for ports only a device's name or its hardware port can show (`hdmi`, `lineOut`, `lineIn`).
    static func aliasProperties(for port: Port, isSink: Bool) -> String? {
        switch port {
        case .speaker where isSink, .builtInMic where !isSink: ""
        case .receiver: "device.form_factor='handset'"
        case .headphones: "device.form_factor='headphone'"
        case .headset, .headsetMic: "device.form_factor='headset'"
        case .bluetoothA2DP: "bluetooth.protocol='a2dp_sink'"
        case .bluetoothHFP: "bluetooth.protocol='handsfree_head_unit'"
        case .usbAudio: "device.bus='usb'"
        case .carAudio: "device.form_factor='car'"
        default: nil
        }
    }
}
