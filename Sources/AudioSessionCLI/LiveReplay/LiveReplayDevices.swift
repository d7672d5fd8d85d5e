import AudioSessionPolicy
import PulseBackend

/// The daemon's sound server as a live replay drives it: it plugs and unplugs null sinks and sources that are
/// policy ports (named after them), and reads what the server says of the replay's streams.
final class LiveSoundServer: @unchecked Sendable {
    let connection: PulseConnection
    /// pipewire-pulse has no module-null-source; a null sink of class Audio/Source/Virtual is one.
    let isPipeWire: Bool
    private var aliases = 0

    /// A sink of no port the replay touches, the default while ports come and go (`replug`).
    static let holdName = "liveReplayHold"
    /// What an alias's name has between the port's name and its number: `headphones-again1`.
    static let aliasMark = "-again"

    private init(connection: PulseConnection, isPipeWire: Bool) {
        self.connection = connection
        self.isPipeWire = isPipeWire
    }

    static func connect(server: String?) async throws -> LiveSoundServer {
        let connection = PulseConnection(server: server, applicationName: "audiosessionctl-replay")
        do {
            try await connection.connect()
            let info = try await connection.serverInfo()
            return LiveSoundServer(connection: connection, isPipeWire: info.serverName.contains("PipeWire"))
        } catch {
            connection.close()
            throw CLIError("cannot reach the sound server \(server ?? "(libpulse's default)"): \(error)")
        }
    }

    func close() { connection.close() }

    // MARK: Devices

    /// A sink or source that is a port: named after it, or an alias the replay made.
    struct PortDevice: Sendable {
        var device: LivePorts.Device
        var name: String
        var index: UInt32
        var module: UInt32?
    }

    /// The port a device of this name stands for, if the replay's naming makes it one: the port's name, then
    /// optionally `-` and more (`bluetoothHFP-out`, `headphones-again1`), or a `.N` the server added to make a
    /// name unique.
    static func port(ofDeviceNamed name: String, isSink: Bool) -> Port? {
        let base = name.prefix { $0 != "-" && $0 != "." }
        guard let port = Port(rawValue: String(base)), isSink ? port.isOutput : port.isInput else { return nil }
        return port
    }

    /// The name a port's first device gets. Sinks and sources share one namespace in PulseAudio: the sink of a
    /// port that is also an input (`bluetoothHFP`, `usbAudio`) is `PORT-out`, with properties that make it that
    /// port for the daemon, and the source has the port's name.
    static func name(of device: LivePorts.Device) -> String {
        device.isSink && device.port.isInput ? device.port.rawValue + "-out" : device.port.rawValue
    }

    func portDevices() async throws -> [PortDevice] {
        var found: [PortDevice] = []
        for sink in try await connection.sinks() {
            guard let port = Self.port(ofDeviceNamed: sink.name, isSink: true) else { continue }
            found.append(
                PortDevice(
                    device: .init(port: port, isSink: true),
                    name: sink.name,
                    index: sink.index,
                    module: sink.moduleIndex
                )
            )
        }
        for source in try await connection.sources() where source.monitorOfSink == nil {
            guard let port = Self.port(ofDeviceNamed: source.name, isSink: false) else { continue }
            found.append(
                PortDevice(
                    device: .init(port: port, isSink: false),
                    name: source.name,
                    index: source.index,
                    module: source.moduleIndex
                )
            )
        }
        return found
    }

    /// Plugs in a device for a port: named after it, or, when one is already there, an alias the daemon takes
    /// for the same port.
    func plug(_ device: LivePorts.Device) async throws {
        let first = Self.name(of: device)
        let present = try await portDevices().contains { $0.device == device && $0.name == first }
        var name = first
        var properties: [String] = []
        if present || name != device.port.rawValue {
            guard let alias = LivePorts.aliasProperties(for: device.port, isSink: device.isSink) else {
                throw CLIError(
                    "cannot connect \(device.port.rawValue) again: no second device can be \(device.port.rawValue) for the daemon"
                )
            }
            if present {
                aliases += 1
                name = device.port.rawValue + "\(Self.aliasMark)\(aliases)"
            }
            if !alias.isEmpty { properties.append(alias) }
        }
        properties.append("device.description='\(name)'")
        let list = "\"" + properties.joined(separator: " ") + "\""
        if device.isSink {
            _ = try await connection.loadModule(
                "module-null-sink",
                arguments: "sink_name=\(name) sink_properties=\(list)"
            )
        } else if isPipeWire {
            _ = try await connection.loadModule(
                "module-null-sink",
                arguments: "media.class=Audio/Source/Virtual sink_name=\(name) sink_properties=\(list)"
            )
        } else {
            // PulseAudio's module-null-source takes a description and no other properties.
            guard properties.count == 1 else {
                throw CLIError(
                    "cannot connect \(device.port.rawValue) again: PulseAudio's null source takes no properties to make a second one"
                )
            }
            _ = try await connection.loadModule(
                "module-null-source",
                arguments: "source_name=\(name) description=\(name)"
            )
        }
    }

    /// Unplugs every device of the port (sinks first), as `disconnect:` does.
    func unplug(_ port: Port, isSink: Bool) async throws {
        let devices = try await portDevices().filter { $0.device.port == port && $0.device.isSink == isSink }
        for device in devices { try await unload(device) }
        try await waitUntilGone(devices)
    }

    /// Unplugs every port device: sinks first, then sources.
    func unplugAll() async throws {
        let devices = try await portDevices()
        for device in devices where device.device.isSink { try await unload(device) }
        for device in devices where !device.device.isSink { try await unload(device) }
        try await waitUntilGone(devices)
    }

    /// PulseAudio unloads a module after it has answered the request: until the device is gone, a new one of
    /// the same name would get another name (`speaker.2`).
    private func waitUntilGone(_ devices: [PortDevice]) async throws {
        let names = Set(devices.map(\.name))
        let deadline = ContinuousClock.now + .seconds(2)
        while try await portDevices().contains(where: { names.contains($0.name) }) {
            guard ContinuousClock.now < deadline else {
                throw CLIError("the server did not remove \(names.sorted().joined(separator: ", ")) within 2 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func unload(_ device: PortDevice) async throws {
        guard let module = device.module else {
            throw CLIError("cannot remove \(device.name): the server did not make it with a module (a real device?)")
        }
        try await connection.unloadModule(module)
    }

    // MARK: The default sink

    /// Unplugs every port device and plugs in `order`, so that the daemon sees the ports connect in that order
    /// and no change of the default sink it would take for the user's pick (R3) is left standing.
    ///
    /// Meanwhile a sink of no port the replay touches holds the default: so PipeWire makes no fallback sink, and
    /// the server's configured default does not take over when its name comes back. The daemon takes any move of
    /// the default between two sinks it knows for the user's pick, even the server's own fallback when the
    /// default sink goes (PulseAudio announces the new default before the old sink's removal). So the default is
    /// moved to the first port's sink as it comes, before the devices after it (whose connection clears the
    /// pick, R2), and the hold sink leaves when it is no longer the default.
    func replug(_ order: [LivePorts.Device]) async throws {
        if try await connection.sinks().contains(where: { $0.name == Self.holdName }) == false {
            _ = try await connection.loadModule(
                "module-null-sink",
                arguments: "sink_name=\(Self.holdName) sink_properties=\"device.description='\(Self.holdName)'\""
            )
        }
        try await unplugAll()
        try await pinDefault()
        let firstSink = order.firstIndex(where: \.isSink)
        for (position, device) in order.enumerated() {
            try await plug(device)
            if position == firstSink && position < order.count - 1 {
                try await makeDefault(Self.name(of: device))
            }
        }
        for sink in try await connection.sinks() where sink.name == Self.holdName {
            if let module = sink.moduleIndex { try await connection.unloadModule(module) }
        }
        while try await connection.sinks().contains(where: { $0.name == Self.holdName }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await pinDefault()
    }

    /// Makes the current default sink the configured one, so that no device plugged in later takes its place
    /// (PulseAudio and WirePlumber prefer the configured default; a returning configured default would take over).
    func pinDefault() async throws {
        guard let current = try await connection.serverInfo().defaultSinkName else { return }
        try? await connection.setDefaultSink(current)
    }

    /// Makes a sink just plugged in the default, once the server takes it (pipewire-pulse lists a new sink a
    /// moment after its module loaded, and either server may refuse the name for a moment after that).
    /// It returns once the server reports it (WirePlumber applies it a moment later), so the daemon hears of it
    /// before the devices that come next.
    private func makeDefault(_ name: String) async throws {
        try await Self.retrying { try await self.connection.setDefaultSink(name) }
        let deadline = ContinuousClock.now + .seconds(2)
        while try await connection.serverInfo().defaultSinkName != name && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs `body` until it succeeds, for at most about two seconds; then throws its last error.
    static func retrying<Value>(_ body: () async throws -> Value) async throws -> Value {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            do {
                return try await body()
            } catch  where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    // MARK: Streams

    /// What the server says now: the replay's streams and the devices by index.
    struct Reading: Sendable {
        var sinkInputs: [UInt32: PulseSinkInput] = [:]
        var sourceOutputs: [UInt32: PulseSourceOutput] = [:]
        var sinkNames: [UInt32: String] = [:]
        var sourceNames: [UInt32: String] = [:]
    }

    func read() async throws -> Reading {
        var reading = Reading()
        for input in try await connection.sinkInputs() { reading.sinkInputs[input.index] = input }
        for output in try await connection.sourceOutputs() { reading.sourceOutputs[output.index] = output }
        for sink in try await connection.sinks() { reading.sinkNames[sink.index] = sink.name }
        for source in try await connection.sources() { reading.sourceNames[source.index] = source.name }
        return reading
    }
}
