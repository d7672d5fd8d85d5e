internal import CPulse

// Conversions from libpulse's info structs, valid only during the callback that passes them.

extension PulseServerInfo {
    init(_ info: pa_server_info) {
        defaultSinkName = String(optionalCString: info.default_sink_name)
        defaultSourceName = String(optionalCString: info.default_source_name)
        serverName = String(optionalCString: info.server_name) ?? ""
        serverVersion = String(optionalCString: info.server_version) ?? ""
        hostName = String(optionalCString: info.host_name) ?? ""
        cookie = info.cookie
    }
}

extension PulseSinkInput {
    /// `keys`: the properties to keep (`PulseConnection`'s `appPropertyKeys`); nil: all.
    init(_ info: pa_sink_input_info, keeping keys: Proplist.Keys? = nil) {
        index = info.index
        name = String(optionalCString: info.name) ?? ""
        clientIndex = info.client.validIndex
        sinkIndex = info.sink
        volume = PulseVolume(info.volume)
        muted = info.mute != 0
        corked = info.corked != 0
        hasVolume = info.has_volume != 0
        volumeWritable = info.volume_writable != 0
        properties = Proplist.dictionary(info.proplist, keeping: keys)
    }
}

extension PulseSourceOutput {
    /// `keys`: the properties to keep (`PulseConnection`'s `appPropertyKeys`); nil: all.
    init(_ info: pa_source_output_info, keeping keys: Proplist.Keys? = nil) {
        index = info.index
        name = String(optionalCString: info.name) ?? ""
        clientIndex = info.client.validIndex
        sourceIndex = info.source
        volume = PulseVolume(info.volume)
        muted = info.mute != 0
        corked = info.corked != 0
        hasVolume = info.has_volume != 0
        volumeWritable = info.volume_writable != 0
        properties = Proplist.dictionary(info.proplist, keeping: keys)
    }
}

extension PulseSink {
    init(_ info: pa_sink_info) {
        index = info.index
        name = String(optionalCString: info.name) ?? ""
        description = String(optionalCString: info.description) ?? ""
        activePort = String(optionalCString: info.active_port?.pointee.name)
        ports = (0..<Int(info.n_ports)).compactMap { String(optionalCString: info.ports?[$0]?.pointee.name) }
        properties = Proplist.dictionary(info.proplist)
        moduleIndex = info.owner_module.validIndex
    }
}

extension PulseSource {
    init(_ info: pa_source_info) {
        index = info.index
        name = String(optionalCString: info.name) ?? ""
        description = String(optionalCString: info.description) ?? ""
        activePort = String(optionalCString: info.active_port?.pointee.name)
        ports = (0..<Int(info.n_ports)).compactMap { String(optionalCString: info.ports?[$0]?.pointee.name) }
        properties = Proplist.dictionary(info.proplist)
        moduleIndex = info.owner_module.validIndex
        monitorOfSink = info.monitor_of_sink.validIndex
    }
}

extension PulseClient {
    /// `keys`: the properties to keep (`PulseConnection`'s `appPropertyKeys`); nil: all.
    init(_ info: pa_client_info, keeping keys: Proplist.Keys? = nil) {
        index = info.index
        name = String(optionalCString: info.name) ?? ""
        properties = Proplist.dictionary(info.proplist, keeping: keys)
    }
}
