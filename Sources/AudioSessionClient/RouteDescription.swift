import AudioSessionPolicy
import AudioSessionProtocol

/// One port of a route, as `AVAudioSessionPortDescription` describes it.
public struct PortDescription: Sendable, Hashable {
    /// The kind of port: `.speaker`, `.headphones`, `.bluetoothA2DP`, `.builtInMic`...
    public var portType: Port
    /// A name for people; the daemon names ports by type only.
    public var portName: String { portType.rawValue }

    /// A port of the given type.
    public init(portType: Port) { self.portType = portType }
}

/// Where a session's sound goes and comes from, as `AVAudioSessionRouteDescription` describes it. Either list
/// is empty when the session's category has no output or no input.
public struct RouteDescription: Sendable, Hashable {
    /// The output ports (the daemon routes to at most one).
    public var outputs: [PortDescription]
    /// The input ports (at most one).
    public var inputs: [PortDescription]

    /// A route with the given ports.
    public init(outputs: [PortDescription] = [], inputs: [PortDescription] = []) {
        self.outputs = outputs
        self.inputs = inputs
    }

    init(_ body: RouteBody?) {
        self.init(
            outputs: body?.output.map { [PortDescription(portType: $0)] } ?? [],
            inputs: body?.input.map { [PortDescription(portType: $0)] } ?? []
        )
    }
}
