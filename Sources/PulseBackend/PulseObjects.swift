/// The server as `pa_context_get_server_info` describes it.
public struct PulseServerInfo: Sendable, Hashable {
    /// The sink new playback streams go to, if any.
    public var defaultSinkName: String?
    /// The source new record streams read from, if any.
    public var defaultSourceName: String?
    /// "pulseaudio", or e.g. "PulseAudio (on PipeWire 0.3.65)".
    public var serverName: String
    /// The server's version string.
    public var serverVersion: String
    /// The host the server runs on.
    public var hostName: String
    /// A random number the server chose when it started: another instance of the server (after a restart or
    /// a crash) has another cookie.
    public var cookie: UInt32 = 0
}

/// A playback stream on the server (`pa_sink_input_info`).
public struct PulseSinkInput: Sendable, Hashable {
    /// The server's index of the stream.
    public var index: UInt32
    /// The stream's name (`media.name`).
    public var name: String
    /// The client that owns it, if any (module-created streams have none).
    public var clientIndex: UInt32?
    /// The sink it plays to.
    public var sinkIndex: UInt32
    /// Its own volume, per channel.
    public var volume: PulseVolume
    /// Whether it is muted.
    public var muted: Bool
    /// Whether the application paused it.
    public var corked: Bool
    /// Whether it has a volume at all (passthrough streams do not).
    public var hasVolume: Bool
    /// Whether clients may set its volume.
    public var volumeWritable: Bool
    /// Its properties: `media.role`, `application.process.id`, `module-stream-restore.id`, ...
    public var properties: [String: String]
}

/// A record stream on the server (`pa_source_output_info`).
public struct PulseSourceOutput: Sendable, Hashable {
    /// The server's index of the stream.
    public var index: UInt32
    /// The stream's name (`media.name`).
    public var name: String
    /// The client that owns it, if any.
    public var clientIndex: UInt32?
    /// The source it records from.
    public var sourceIndex: UInt32
    /// Its own volume, per channel.
    public var volume: PulseVolume
    /// Whether it is muted.
    public var muted: Bool
    /// Whether the application paused it.
    public var corked: Bool
    /// Whether it has a volume at all.
    public var hasVolume: Bool
    /// Whether clients may set its volume.
    public var volumeWritable: Bool
    /// Its properties.
    public var properties: [String: String]
}

/// An output device (`pa_sink_info`).
public struct PulseSink: Sendable, Hashable {
    /// The server's index of the sink.
    public var index: UInt32
    /// Its unique name, e.g. "speaker".
    public var name: String
    /// Its human-readable description.
    public var description: String
    /// The name of its active port, if it has ports.
    public var activePort: String?
    /// The names of its ports, in the server's order.
    public var ports: [String]
    /// Its properties: `device.class`, `device.bus`, `device.form_factor`, ...
    public var properties: [String: String]
    /// The module that created it, if any (unloading that module removes the sink).
    public var moduleIndex: UInt32?
}

/// An input device (`pa_source_info`), including sinks' monitors.
public struct PulseSource: Sendable, Hashable {
    /// The server's index of the source.
    public var index: UInt32
    /// Its unique name, e.g. "mic" or "speaker.monitor".
    public var name: String
    /// Its human-readable description.
    public var description: String
    /// The name of its active port, if it has ports.
    public var activePort: String?
    /// The names of its ports, in the server's order.
    public var ports: [String]
    /// Its properties.
    public var properties: [String: String]
    /// The module that created it, if any.
    public var moduleIndex: UInt32?
    /// The sink this source monitors, if it is a monitor.
    public var monitorOfSink: UInt32?
}

/// A connected client (`pa_client_info`).
public struct PulseClient: Sendable, Hashable {
    /// The server's index of the client.
    public var index: UInt32
    /// Its application name.
    public var name: String
    /// Its properties: `application.process.id`, `application.process.binary`, ...
    public var properties: [String: String]
}
