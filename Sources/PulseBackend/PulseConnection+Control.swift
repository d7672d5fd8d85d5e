internal import CPulse

extension PulseConnection {
    /// Sets a playback stream's own volume. If the channel count differs from the stream's, the server keeps the
    /// stream's balance and scales it so its loudest channel gets this volume's loudest value.
    public func setSinkInputVolume(_ index: UInt32, _ volume: PulseVolume) async throws {
        let name = "pa_context_set_sink_input_volume"
        var cVolume = try volume.cVolume(for: name)
        try await perform(name) { context, userdata in
            pa_context_set_sink_input_volume(context, index, &cVolume, Thunk.success, userdata)
        } as Void
    }

    /// Mutes or unmutes a playback stream.
    public func setSinkInputMute(_ index: UInt32, _ muted: Bool) async throws {
        try await perform("pa_context_set_sink_input_mute") { context, userdata in
            pa_context_set_sink_input_mute(context, index, muted ? 1 : 0, Thunk.success, userdata)
        } as Void
    }

    /// Moves a playback stream to another sink.
    public func moveSinkInput(_ index: UInt32, toSink sinkIndex: UInt32) async throws {
        try await perform("pa_context_move_sink_input_by_index") { context, userdata in
            pa_context_move_sink_input_by_index(context, index, sinkIndex, Thunk.success, userdata)
        } as Void
    }

    /// Ends a playback stream; its application sees the stream fail.
    public func killSinkInput(_ index: UInt32) async throws {
        try await perform("pa_context_kill_sink_input") { context, userdata in
            pa_context_kill_sink_input(context, index, Thunk.success, userdata)
        } as Void
    }

    /// Sets a record stream's own volume (a different channel count is handled as for sink inputs).
    public func setSourceOutputVolume(_ index: UInt32, _ volume: PulseVolume) async throws {
        let name = "pa_context_set_source_output_volume"
        var cVolume = try volume.cVolume(for: name)
        try await perform(name) { context, userdata in
            pa_context_set_source_output_volume(context, index, &cVolume, Thunk.success, userdata)
        } as Void
    }

    /// Mutes or unmutes a record stream.
    public func setSourceOutputMute(_ index: UInt32, _ muted: Bool) async throws {
        try await perform("pa_context_set_source_output_mute") { context, userdata in
            pa_context_set_source_output_mute(context, index, muted ? 1 : 0, Thunk.success, userdata)
        } as Void
    }

    /// Moves a record stream to another source.
    public func moveSourceOutput(_ index: UInt32, toSource sourceIndex: UInt32) async throws {
        try await perform("pa_context_move_source_output_by_index") { context, userdata in
            pa_context_move_source_output_by_index(context, index, sourceIndex, Thunk.success, userdata)
        } as Void
    }

    /// Ends a record stream.
    public func killSourceOutput(_ index: UInt32) async throws {
        try await perform("pa_context_kill_source_output") { context, userdata in
            pa_context_kill_source_output(context, index, Thunk.success, userdata)
        } as Void
    }

    /// Makes the sink named `name` the default for new playback streams.
    public func setDefaultSink(_ name: String) async throws {
        try await perform("pa_context_set_default_sink") { context, userdata in
            pa_context_set_default_sink(context, name, Thunk.success, userdata)
        } as Void
    }

    /// Makes the source named `name` the default for new record streams.
    public func setDefaultSource(_ name: String) async throws {
        try await perform("pa_context_set_default_source") { context, userdata in
            pa_context_set_default_source(context, name, Thunk.success, userdata)
        } as Void
    }

    /// Loads a server module, e.g. `loadModule("module-null-sink", arguments: "sink_name=headphones")`.
    /// - Returns: the module's index, for `unloadModule`.
    public func loadModule(_ name: String, arguments: String) async throws -> UInt32 {
        try await perform("pa_context_load_module(\(name))") { context, userdata in
            pa_context_load_module(context, name, arguments, Thunk.index, userdata)
        }
    }

    /// Unloads a server module; the devices it created go away.
    public func unloadModule(_ index: UInt32) async throws {
        try await perform("pa_context_unload_module") { context, userdata in
            pa_context_unload_module(context, index, Thunk.success, userdata)
        } as Void
    }
}
