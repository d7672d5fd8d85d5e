import AudioSessionPolicy
import AudioSessionProtocol

extension DaemonCore {
    /// What the sound server says, as engine events.
    package mutating func handle(_ fact: SoundFact) {
        switch fact {
        case .serverConnected:
            outputMemory.takingInventory = true
            guard soundServerLost else { return }
            soundServerLost = false
            // M1: every stream is gone with the old server, and the engine forgets clients' own streams too:
            // sessions become inactive and are told, and apps start their streams again.
            for origin in Array(streamIDs.keys) { forget(origin) }
            soundStreams.removeAll()
            waitingStreams.removeAll()
            run(.mediaServicesReset)
            // Unaware apps' sessions went with their streams; reset first, so no one is told their
            // interruptions ended (M1).
            removeIdleUnawareSessions()
        case .serverLost(let reason):
            guard !soundServerLost else { return }
            soundServerLost = true
            effects.append(.log("sound server lost: \(reason)"))
            run(.mediaServicesLost)
        case .inventoryTaken: restoreOutputSelection()
        case .portAvailable(let port):
            run(.portConnected(port))
            // A device of a port streams are already routed to (headsetMic after its headset, the source of a
            // Bluetooth hands-free device after its sink): the engine's routes did not change, so it sent no
            // verdict; the streams are moved to the device now.
            for (origin, stream) in streamIDs where !origin.isClient {
                if let verdict = engine.verdict(of: stream), verdict.port == port {
                    effects.append(.enforce(origin, verdict))
                }
            }
        case .portGone(let port): run(.portDisconnected(port))
        case .outputSelectedByUser(let port): run(.outputSelected(port))
        case .streamSeen(let stream):
            soundStreams[stream.origin] = stream
            see(stream)
        case .streamMovedByServer(let origin):
            if let stream = streamIDs[origin], let verdict = engine.verdict(of: stream) {
                effects.append(.enforce(origin, verdict))
            }
        case .mixerVolume(let volume): mixerVolumeSeen(volume)
        case .mixerGone(let reason): mixerGone(reason)
        case .mixerReleasedByUser: mixerReleasedByUser()
        case .streamGone(let origin):
            waitingStreams[origin] = nil
            soundStreams[origin] = nil
            guard let stream = streamIDs[origin] else { return }
            forget(origin)
            run(.streamRemoved(stream))
            removeIdleUnawareSessions()
        }
    }

    /// A new or changed stream: found its session the first time it runs, then started or paused as it
    /// uncorks and corks.
    private mutating func see(_ stream: SoundStream) {
        if let known = streamIDs[stream.origin] {
            let running = engine.isRunning(known)
            guard running != stream.isRunning, let session = engine.session(of: known) else { return }
            if stream.isRunning {
                started(stream.origin, session: session, direction: stream.direction)
            } else {
                run(.streamPaused(known))
            }
            return
        }
        // A stream seen corked waits: PipeWire opens streams corked and uncorks them a few milliseconds later.
        guard stream.isRunning else {
            waitingStreams[stream.origin] = stream
            return
        }
        waitingStreams[stream.origin] = nil
        let session = session(for: stream)
        started(stream.origin, session: session, direction: stream.direction)
    }

    /// D5: a stream that starts activates its session; when that fails, the stream stays silent and the log
    /// says why.
    private mutating func started(_ origin: StreamOrigin, session: SessionID, direction: StreamDirection) {
        let outcome = run(.streamStarted(streamID(for: origin), session: session, direction: direction))
        if let error = outcome.error {
            effects.append(.log("\(origin) of \(name(of: session)) started but stays silent: \(error.code.rawValue): \(explainer.describe(error.reason))"))
        }
    }

    /// A stream's session: the one its `audiosession.id` names, else the one of the client whose process plays
    /// it, else an unaware app's, classified by the rules.
    private mutating func session(for stream: SoundStream) -> SessionID {
        let namedSession = stream.properties["audiosession.id"].flatMap(Int.init)
        if let id = namedSession, sessionOwners[SessionID(id)] != nil {
            return SessionID(id)
        }
        // A stream that names a session that has ended is not given to another session of the same process:
        // it becomes an unaware app's.
        if namedSession == nil, let pid = stream.properties["application.process.id"].flatMap(Int32.init),
            let owner = clients.values.first(where: { $0.peer.processID == pid && $0.session != nil })
        {
            return owner.session!
        }
        let app =
            stream.properties["application.name"] ?? stream.properties["application.process.binary"] ?? "unknown"
        let role = stream.properties["media.role"] ?? ""
        // A player's streams have a session of their own, so that the pause goes to the right player.
        let player = player(for: stream)
        let key = "\(app)|\(role)|\(stream.direction.rawValue)" + (player.map { "|" + $0 } ?? "")
        if let session = unawareSessions[key] { return session }
        let session = SessionID(nextSession)
        nextSession += 1
        unawareSessions[key] = session
        let described = [role, stream.direction == .input ? "capture" : ""].filter { !$0.isEmpty }
        sessionNames[session] = described.isEmpty ? app : "\(app) (\(described.joined(separator: ", ")))"
        var matchable = stream.properties.filter { ClassificationRule.matchableProperties.contains($0.key) }
        matchable["stream.direction"] = stream.direction.rawValue
        if let player { players.bind(player, to: session) }
        run(.sessionCreated(session, SessionDeclaration(appName: app, unawareStreamProperties: matchable, isMediaPlayer: player != nil)))
        if let snapshot = engine.snapshot(of: session) {
            let (name, category, options) = (sessionNames[session]!, snapshot.category, snapshot.options)
            effects.append(.log(LogLine { "\(name): unaware app, classified as \(category.rawValue) \(options.names) (U1)\(player.map { ", a player: \($0)" } ?? "")" }))
        }
        return session
    }

    /// The engine's number for a stream, given on first sight.
    package mutating func streamID(for origin: StreamOrigin) -> StreamID {
        if let known = streamIDs[origin] { return known }
        let stream = StreamID(nextStream)
        nextStream += 1
        streamIDs[origin] = stream
        origins[stream] = origin
        return stream
    }

    package mutating func forget(_ origin: StreamOrigin) {
        guard let stream = streamIDs.removeValue(forKey: origin) else { return }
        origins[stream] = nil
    }

    /// A client went away: its session ends (interruptions it caused end without shouldResume, POLICY
    /// section 2), its own streams go with it.
    package mutating func disconnect(_ client: ClientID) {
        guard let record = clients.removeValue(forKey: client) else { return }
        for origin in streamIDs.keys where origin.belongs(to: client) { forget(origin) }
        guard let session = record.session else { return }
        effects.append(.log("\(name(of: session)): \(client) disconnected; session \(session.rawValue) ends"))
        // The sound server's streams of the session outlive it: they become unaware apps' streams.
        let orphans = engine.streamIDs(of: session).compactMap { origins[$0] }.filter { !$0.isClient }
        for origin in orphans { forget(origin) }
        run(.sessionRemoved(session))
        sessionOwners[session] = nil
        sessionNames[session] = nil
        for origin in orphans.sorted(by: { $0.description < $1.description }) {
            if let stream = soundStreams[origin] { see(stream) }
        }
    }

    /// An unaware app's session that is inactive and has no stream left is forgotten, so that apps that come
    /// and go do not pile up. Unaware sessions are few (one per app and role that played lately).
    package mutating func removeIdleUnawareSessions() {
        // Looked at after every stream's end: the engine's own check, not a snapshot of each session.
        let idle = unawareSessions.filter { engine.isIdle($0.value) }
        for (key, session) in idle.sorted(by: { $0.value < $1.value }) {
            run(.sessionRemoved(session))
            unawareSessions[key] = nil
            sessionNames[session] = nil
            forgetPlayer(of: session)
        }
    }
}

extension StreamOrigin {
    package var isClient: Bool {
        if case .client = self { return true }
        return false
    }

    package func belongs(to client: ClientID) -> Bool {
        if case .client(let owner, _) = self { return owner == client }
        return false
    }
}
