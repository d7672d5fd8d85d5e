import PulseBackend

/// The stream steps: real streams opened, corked and uncorked as an app would, each step done once the
/// daemon has seen it.
extension LiveScenarioRunner {
    func play(_ session: LiveSession) async throws {
        if session.isPlayer { return try await playPlayer(session) }
        if let stream = session.output {
            // A restart the daemon can see: corked first if it runs (a pause and a play restart it, R4, D5).
            if !session.outputCorked {
                try await stream.cork(true)
                try await waitForStream(.sinkInput(stream.sinkInputIndex), running: false)
            }
            try await stream.cork(false)
            session.outputCorked = false
            try await waitForStream(.sinkInput(stream.sinkInputIndex), running: true)
            return
        }
        // PipeWire refuses a stream now and then while devices come and go: it is tried again.
        let stream = try await LiveSoundServer.retrying {
            try await PulsePlaybackStream.open(
                server: self.options.pulseServer,
                name: session.name,
                properties: session.streamProperties()
            )
        }
        session.output = stream
        session.userVolume = try await server.connection.sinkInput(stream.sinkInputIndex)?.volume
        try await waitForStream(.sinkInput(stream.sinkInputIndex), running: true)
    }

    func pause(_ session: LiveSession) async throws {
        if session.isPlayer { return try await pausePlayer(session) }
        guard let stream = session.output, !session.outputCorked else { return }
        try await stream.cork(true)
        session.outputCorked = true
        try await waitForStream(.sinkInput(stream.sinkInputIndex), running: false)
    }

    func record(_ session: LiveSession) async throws {
        if let stream = session.input {
            if !session.inputCorked {
                try await stream.cork(true)
                try await waitForStream(.sourceOutput(stream.sourceOutputIndex), running: false)
            }
            try await stream.cork(false)
            session.inputCorked = false
            try await waitForStream(.sourceOutput(stream.sourceOutputIndex), running: true)
            return
        }
        let stream = try await LiveSoundServer.retrying {
            try await PulseRecordStream.open(
                server: self.options.pulseServer,
                name: session.name,
                properties: session.streamProperties()
            )
        }
        session.input = stream
        try await waitForStream(.sourceOutput(stream.sourceOutputIndex), running: true)
    }

    func stopRecording(_ session: LiveSession) async throws {
        guard let stream = session.input, !session.inputCorked else { return }
        try await stream.cork(true)
        session.inputCorked = true
        try await waitForStream(.sourceOutput(stream.sourceOutputIndex), running: false)
    }

    /// Waits until the daemon has seen the stream start or pause, so that what follows meets the daemon where
    /// the engine would be.
    func waitForStream(_ stream: LiveStreamOrigin, running: Bool, within limit: Duration = .seconds(3)) async throws {
        let seen = try await poll(within: limit) {
            let found = try self.world.status().streams.first { $0.origin == stream.description }
            return running ? found?.running == true : found?.running != true
        }
        if !seen { throw CLIError("the daemon did not see \(stream) \(running ? "start" : "pause") within \(limit)") }
    }
}

/// A stream as the daemon names it in `status` (`pulse sink-input 12`).
enum LiveStreamOrigin: CustomStringConvertible {
    case sinkInput(UInt32)
    case sourceOutput(UInt32)

    var description: String {
        switch self {
        case .sinkInput(let index): "pulse sink-input \(index)"
        case .sourceOutput(let index): "pulse source-output \(index)"
        }
    }
}
