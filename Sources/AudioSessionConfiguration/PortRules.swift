import AudioSessionPolicy

/// How sound-server devices become policy ports: each rule matches properties of a sink or source (its name,
/// its active port's name, `device.form_factor`, `device.bus`, `bluetooth.protocol`...) and names a port. The
/// first rule that matches wins.
public struct PortRule: Sendable, Hashable {
    /// Property name to the values that match (any one, without regard to case); `*` in a value matches any
    /// run of characters. The pseudo-properties `sink.name`/`source.name` and `port.name` stand for the
    /// device's name and its active port.
    public var match: [String: [String]]
    public var port: Port

    public init(match: [String: [String]], port: Port) {
        self.match = match
        self.port = port
    }

    public func matches(_ properties: [String: String]) -> Bool {
        match.allSatisfy { key, patterns in
            guard let value = properties[key]?.lowercased() else { return false }
            return patterns.contains { Self.glob($0.lowercased(), matches: value) }
        }
    }

    private static func glob(_ pattern: String, matches value: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == value }
        var rest = Substring(value)
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return part.isEmpty || rest.hasSuffix(part)
            } else if let range = rest.firstRange(of: part) {
                rest = rest[range.upperBound...]
            } else {
                return false
            }
        }
        return true
    }
}

/// The rules for outputs (sinks) and inputs (sources).
public struct PortRules: Sendable, Hashable {
    public var outputs: [PortRule]
    public var inputs: [PortRule]

    public init(outputs: [PortRule], inputs: [PortRule]) {
        self.outputs = outputs
        self.inputs = inputs
    }

    /// The port of a sink; nil when no rule matches (the sink is not a policy port).
    public func outputPort(of properties: [String: String]) -> Port? {
        outputs.first { $0.matches(properties) }?.port
    }

    /// The port of a source; nil when no rule matches. Monitor sources are not ports: the caller leaves them
    /// out before asking.
    public func inputPort(of properties: [String: String]) -> Port? {
        inputs.first { $0.matches(properties) }?.port
    }

    /// The shipped defaults: a device named after a port is that port (the private test servers and the
    /// embedded default name their null sinks so); then Bluetooth profiles, form factors, buses and port names
    /// of real hardware; anything else is the speaker or the built-in microphone.
    public static let standard = PortRules(
        outputs: Port.allCases.filter(\.isOutput).map { PortRule(match: ["sink.name": [$0.rawValue]], port: $0) } + [
            PortRule(match: ["bluetooth.protocol": ["a2dp_sink", "a2dp"]], port: .bluetoothA2DP),
            PortRule(match: ["bluetooth.protocol": ["handsfree_head_unit", "headset_head_unit", "hfp*", "hsp*"]], port: .bluetoothHFP),
            PortRule(match: ["device.form_factor": ["car"]], port: .carAudio),
            PortRule(match: ["device.form_factor": ["headset"]], port: .headset),
            PortRule(match: ["device.form_factor": ["headphone"]], port: .headphones),
            PortRule(match: ["device.form_factor": ["handset"]], port: .receiver),
            PortRule(match: ["device.bus": ["usb"]], port: .usbAudio),
            PortRule(match: ["port.name": ["*hdmi*"]], port: .hdmi),
            PortRule(match: ["port.name": ["*headphone*"]], port: .headphones),
            PortRule(match: ["port.name": ["*earpiece*", "*handset*"]], port: .receiver),
            PortRule(match: ["port.name": ["*lineout*", "*line-out*"]], port: .lineOut),
            PortRule(match: [:], port: .speaker),
        ],
        inputs: Port.allCases.filter(\.isInput).map { PortRule(match: ["source.name": [$0.rawValue]], port: $0) } + [
                PortRule(match: ["bluetooth.protocol": ["handsfree_head_unit", "headset_head_unit", "hfp*", "hsp*"]], port: .bluetoothHFP),
                PortRule(match: ["device.form_factor": ["headset"]], port: .headsetMic),
                PortRule(match: ["device.bus": ["usb"]], port: .usbAudio),
                PortRule(match: ["port.name": ["*headset*"]], port: .headsetMic),
                PortRule(match: ["port.name": ["*linein*", "*line-in*"]], port: .lineIn),
                PortRule(match: [:], port: .builtInMic),
            ]
    )
}
