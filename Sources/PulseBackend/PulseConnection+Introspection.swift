internal import CPulse

extension PulseConnection {
    /// The server's name, version and default devices.
    public func serverInfo() async throws -> PulseServerInfo {
        try await perform("pa_context_get_server_info") { context, userdata in
            pa_context_get_server_info(context, Introspection.serverInfo, userdata)
        }
    }

    /// Every playback stream.
    public func sinkInputs() async throws -> [PulseSinkInput] {
        try await perform("pa_context_get_sink_input_info_list") { context, userdata in
            pa_context_get_sink_input_info_list(context, Introspection.sinkInputs, userdata)
        }
    }

    /// One playback stream, or nil when it is gone.
    public func sinkInput(_ index: UInt32) async throws -> PulseSinkInput? {
        try await perform("pa_context_get_sink_input_info") { context, userdata in
            pa_context_get_sink_input_info(context, index, Introspection.sinkInput, userdata)
        }
    }

    /// Every record stream.
    public func sourceOutputs() async throws -> [PulseSourceOutput] {
        try await perform("pa_context_get_source_output_info_list") { context, userdata in
            pa_context_get_source_output_info_list(context, Introspection.sourceOutputs, userdata)
        }
    }

    /// One record stream, or nil when it is gone.
    public func sourceOutput(_ index: UInt32) async throws -> PulseSourceOutput? {
        try await perform("pa_context_get_source_output_info") { context, userdata in
            pa_context_get_source_output_info(context, index, Introspection.sourceOutput, userdata)
        }
    }

    /// Every output device.
    public func sinks() async throws -> [PulseSink] {
        try await perform("pa_context_get_sink_info_list") { context, userdata in
            pa_context_get_sink_info_list(context, Introspection.sinks, userdata)
        }
    }

    /// One output device, or nil when it is gone.
    public func sink(_ index: UInt32) async throws -> PulseSink? {
        try await perform("pa_context_get_sink_info_by_index") { context, userdata in
            pa_context_get_sink_info_by_index(context, index, Introspection.sink, userdata)
        }
    }

    /// Every input device, monitors included.
    public func sources() async throws -> [PulseSource] {
        try await perform("pa_context_get_source_info_list") { context, userdata in
            pa_context_get_source_info_list(context, Introspection.sources, userdata)
        }
    }

    /// One input device, or nil when it is gone.
    public func source(_ index: UInt32) async throws -> PulseSource? {
        try await perform("pa_context_get_source_info_by_index") { context, userdata in
            pa_context_get_source_info_by_index(context, index, Introspection.source, userdata)
        }
    }

    /// Every connected client.
    public func clients() async throws -> [PulseClient] {
        try await perform("pa_context_get_client_info_list") { context, userdata in
            pa_context_get_client_info_list(context, Introspection.clients, userdata)
        }
    }
}

/// The info callbacks: each converts the C struct while it is valid and hands it to its `OperationBox`.
private enum Introspection {
    static let serverInfo: pa_server_info_cb_t = { context, info, userdata in
        let box = OperationBox<PulseServerInfo>.from(userdata)
        if let info { box.succeed(PulseServerInfo(info.pointee)) } else { box.failWithContextError(context) }
    }

    static let sinkInputs: pa_sink_input_info_cb_t = { context, info, eol, userdata in
        let box = OperationBox<[PulseSinkInput]>.from(userdata)
        let input = info.map { PulseSinkInput($0.pointee, keeping: box.appPropertyKeys) }
        box.receive(input, eol: eol, context: context)
    }

    static let sinkInput: pa_sink_input_info_cb_t = { context, info, eol, userdata in
        let box = OperationBox<PulseSinkInput?>.from(userdata)
        let input = info.map { PulseSinkInput($0.pointee, keeping: box.appPropertyKeys) }
        box.receiveOne(input, eol: eol, context: context)
    }

    static let sourceOutputs: pa_source_output_info_cb_t = { context, info, eol, userdata in
        let box = OperationBox<[PulseSourceOutput]>.from(userdata)
        let output = info.map { PulseSourceOutput($0.pointee, keeping: box.appPropertyKeys) }
        box.receive(output, eol: eol, context: context)
    }

    static let sourceOutput: pa_source_output_info_cb_t = { context, info, eol, userdata in
        let box = OperationBox<PulseSourceOutput?>.from(userdata)
        let output = info.map { PulseSourceOutput($0.pointee, keeping: box.appPropertyKeys) }
        box.receiveOne(output, eol: eol, context: context)
    }

    static let sinks: pa_sink_info_cb_t = { context, info, eol, userdata in
        OperationBox<[PulseSink]>.from(userdata).receive(info.map { PulseSink($0.pointee) }, eol: eol, context: context)
    }

    static let sink: pa_sink_info_cb_t = { context, info, eol, userdata in
        OperationBox<PulseSink?>.from(userdata)
            .receiveOne(info.map { PulseSink($0.pointee) }, eol: eol, context: context)
    }

    static let source: pa_source_info_cb_t = { context, info, eol, userdata in
        OperationBox<PulseSource?>.from(userdata)
            .receiveOne(info.map { PulseSource($0.pointee) }, eol: eol, context: context)
    }

    static let sources: pa_source_info_cb_t = { context, info, eol, userdata in
        OperationBox<[PulseSource]>.from(userdata)
            .receive(info.map { PulseSource($0.pointee) }, eol: eol, context: context)
    }

    static let clients: pa_client_info_cb_t = { context, info, eol, userdata in
        let box = OperationBox<[PulseClient]>.from(userdata)
        box.receive(info.map { PulseClient($0.pointee, keeping: box.appPropertyKeys) }, eol: eol, context: context)
    }
}
