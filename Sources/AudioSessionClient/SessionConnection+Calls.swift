import AudioSessionPolicy
import AudioSessionProtocol

/// The app's calls, each run by its caller with the owner lock held (`AudioSession.perform`).
extension SessionConnection {
    /// Sends a session request; keeps the state it reports, failed or not; throws its error.
    @discardableResult
    private func sessionRequest(_ request: Request) throws(AudioSessionError) -> Reply {
        let reply = try exchange(request)
        keepState(reply)
        if let error = reply.error { throw AudioSessionError(error) }
        return reply
    }

    func setCategory(_ category: Category, mode: Mode, options: CategoryOptions) throws(AudioSessionError) {
        guard ensureConnected() else {
            if let refusal { throw refusal }
            // Checked here as the daemon would, so that a category kept for later is one it will accept.
            if let option = options.firstIllegalOption(for: category) {
                throw AudioSessionError(
                    .badParam,
                    "option \(option) cannot be used with category \(category.rawValue) (C4)",
                    rule: "C4",
                    field: "options"
                )
            }
            if !mode.isLegal(with: category) {
                throw AudioSessionError(
                    .badParam,
                    "mode \(mode.rawValue) cannot be used with category \(category.rawValue) (C5)",
                    rule: "C5",
                    field: "mode"
                )
            }
            published.withLock { ($0.category, $0.mode, $0.options) = (category, mode, options) }
            return
        }
        try sessionRequest(Request(.setCategory(category, mode: mode, options: options)))
        published.withLock { ($0.category, $0.mode, $0.options) = (category, mode, options) }
    }

    func activate() throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        do throws(AudioSessionError) {
            try sessionRequest(Request(.activate))
        } catch {
            wantsActive = published.withLock { $0.snapshot?.state == .active }
            throw error
        }
        wantsActive = true
    }

    func deactivate(notifyOthers: Bool) throws(AudioSessionError) {
        wantsActive = false
        guard ensureConnected() else {
            if let refusal { throw refusal }
            return
        }
        try sessionRequest(Request(.deactivate(notifyOthers: notifyOthers)))
    }

    func refreshState() throws(AudioSessionError) {
        guard socket != nil else { return }
        try sessionRequest(Request(.getState))
    }

    /// Connects now if it can; throws `daemonUnavailable` if it cannot.
    func connectNow() throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
    }

    func overrideOutput(_ port: String) throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        try sessionRequest(Request(.overrideOutput(port: port)))
    }

    func startStream(
        direction: StreamDirection,
        session owner: AudioSession,
        onVerdict: (@Sendable (StreamVerdictUpdate) -> Void)?
    ) throws(AudioSessionError) -> ReportedStream {
        guard ensureConnected() else { throw unavailable }
        // Registered before the request: its first verdict arrives before the reply.
        let stream = ReportedStream(number: nextStream, direction: direction, session: owner, onVerdict: onVerdict)
        nextStream += 1
        streams[stream.number] = stream
        streamsKnownToDaemon.insert(stream.number)
        do throws(AudioSessionError) {
            try sessionRequest(Request(.startStream(stream.number, direction: direction)))
        } catch {
            // A refused activation still records the stream (D5); the app has no handle, so it must go.
            if error.tookEffect {
                _ = try? exchange(Request(.removeStream(stream.number)))
            }
            streams.removeValue(forKey: stream.number)
            streamsKnownToDaemon.remove(stream.number)
            stream.finish()
            throw error
        }
        return stream
    }

    func pause(_ stream: ReportedStream) throws(AudioSessionError) {
        stream.setRunning(false)
        guard streamsKnownToDaemon.contains(stream.number), socket != nil else { return }
        try sessionRequest(Request(.pauseStream(stream.number)))
    }

    func resume(_ stream: ReportedStream) throws(AudioSessionError) {
        guard ensureConnected() else { throw unavailable }
        stream.setRunning(true)
        streamsKnownToDaemon.insert(stream.number)
        try sessionRequest(Request(.startStream(stream.number, direction: stream.direction)))
    }

    func remove(_ stream: ReportedStream) throws(AudioSessionError) {
        streams.removeValue(forKey: stream.number)
        defer { stream.finish() }
        // Still counted as known, as before: removing it twice asks the daemon twice (`badField` the second time).
        guard streamsKnownToDaemon.contains(stream.number), socket != nil else { return }
        try sessionRequest(Request(.removeStream(stream.number)))
    }
}
