import AudioSessionPolicy
import AudioSessionProtocol

extension DaemonCore {
    /// One request: the caller's own session, or control (for the daemon's own user only).
    package mutating func handle(_ request: Request, from client: ClientID) {
        guard let record = clients[client] else { return }
        if request.op.isControl && !isPrivileged(record.peer) {
            return fail(request, client, ErrorBody(code: ProtocolError.Code.notPermitted.rawValue, message: "\(request.op.rawValue) is a control request; only user \(controlUserID) may send it"))
        }
        if let problem = stateProblem, StateNeed(request) != nil {
            return fail(request, client, stateUnavailable(problem, request))
        }
        switch request.command {
        case .hello(let app, let call): hello(request, client, app: app, isCall: call ?? false)
        case .setCategory(let category, let mode, let options):
            let session = sessionFor(client)
            sessionRequest(request, client, .setCategory(session, category, mode: mode ?? .default, options: options ?? []))
        case .activate:
            let session = sessionFor(client)
            sessionRequest(request, client, .activate(session))
        case .deactivate(let notifyOthers):
            let session = sessionFor(client)
            sessionRequest(request, client, .deactivate(session, notifyOthers: notifyOthers ?? false))
        case .overrideOutput(let port):
            guard let override = SpeakerOverride(rawValue: port) else {
                return fail(request, client, badField("port", "'\(port)' is not one of: speaker, none"))
            }
            let session = sessionFor(client)
            sessionRequest(request, client, .outputOverridden(session, override))
        case .getState:
            // The session first: `state(of: sessionFor(client))` would read self before the session exists.
            let session = sessionFor(client)
            reply(request, client, state(of: session))
        case .subscribe:
            clients[client]?.isSubscribed = true
            let session = sessionFor(client)
            reply(request, client, state(of: session))
        case .startStream(let number, let direction):
            let stream = streamID(for: .client(client, number))
            sessionRequest(request, client, .streamStarted(stream, session: sessionFor(client), direction: direction))
        case .pauseStream(let number):
            guard let stream = streamIDs[.client(client, number)] else { return fail(request, client, neverStarted(number)) }
            sessionRequest(request, client, .streamPaused(stream))
        case .removeStream(let number):
            guard let stream = streamIDs[.client(client, number)] else { return fail(request, client, neverStarted(number)) }
            forget(.client(client, number))
            sessionRequest(request, client, .streamRemoved(stream))
        case .setSilentSwitch(let position):
            controlRequest(request, client, .silentSwitch(position))
            tellFeedbackd()
        case .setScreenLock(let locked): controlRequest(request, client, .screenLocked(locked))
        case .setVolume(let volume): setVolume(request, client, volume)
        case .setAppState(let reference, let appState):
            guard let session = resolve(reference) else { return fail(request, client, unknownSession(reference)) }
            controlRequest(request, client, .appState(session, appState))
        case .selectOutput(let name), .connectPort(let name), .disconnectPort(let name):
            portRequest(request, client, name)
        case .resumeStream(let number): resumeStream(request, client, number)
        case .status: send(client, .reply(.success(request.id, ReplyResult(status: status()))))
        case .explain(let reference):
            guard let session = resolve(reference), let snapshot = engine.snapshot(of: session) else {
                return fail(request, client, unknownSession(reference))
            }
            let exemption = sessionOwners[session].flatMap { clients[$0]?.callExemption?.because }.map { [$0] } ?? []
            send(client, .reply(.success(request.id, ReplyResult(explanation: explainer.explain(snapshot) + exemption + streamExplanations(of: session)))))
        case .decisions(let count): decisions(request, client, count: count)
        case .watch:
            clients[client]?.isWatching = true
            let current = status()
            lastPublishedStatus = current
            send(client, .reply(.success(request.id, ReplyResult(status: current))))
        }
    }

    package func isPrivileged(_ peer: ClientPeer) -> Bool { peer.userID == controlUserID || peer.userID == 0 }

    /// `hello`: creates the caller's session with its app name; `call: true` (a telephony or VoIP app) needs
    /// the daemon's own user.
    private mutating func hello(_ request: Request, _ client: ClientID, app: String?, isCall: Bool) {
        guard let record = clients[client] else { return }
        if isCall && !isPrivileged(record.peer) {
            return fail(request, client, ErrorBody(code: ProtocolError.Code.notPermitted.rawValue, message: "only user \(controlUserID) may declare a call", field: "call"))
        }
        let session = record.session ?? createSession(for: client, app: app, isCall: isCall)
        let result = ReplyResult(session: session.rawValue, state: state(of: session), soundServer: soundServer)
        send(client, .reply(.success(request.id, result)))
    }

    /// The caller's session, created on its first session request with its process's name.
    package mutating func sessionFor(_ client: ClientID) -> SessionID {
        if let session = clients[client]?.session { return session }
        return createSession(for: client, app: nil, isCall: false)
    }

    private mutating func createSession(for client: ClientID, app: String?, isCall: Bool) -> SessionID {
        let session = SessionID(nextSession)
        nextSession += 1
        let appName = app ?? clients[client]?.peer.processName ?? "client"
        sessionNames[session] = appName
        sessionOwners[session] = client
        clients[client]?.session = session
        let exemption = clients[client].map { callExemption(of: $0.peer, declaredName: appName) }
        clients[client]?.callExemption = exemption
        let declaration = SessionDeclaration(appName: appName, isCall: isCall, callExemptByIdentity: exemption?.exempt ?? false)
        run(.sessionCreated(session, declaration))
        effects.append(.log("\(appName): session \(session.rawValue) for \(client) (pid \(clients[client]?.peer.processID ?? 0))"))
        if let exemption, exemption.isNotable { effects.append(.log("\(appName): \(exemption.because)")) }
        return session
    }

    private mutating func sessionRequest(_ request: Request, _ client: ClientID, _ event: PolicyEvent) {
        let outcome = run(event)
        let session = sessionFor(client)
        if var error = outcome.error.map(body(for:)) {
            // A stream that starts is recorded even when its session cannot be activated (D5): it stays silent.
            if case .streamStarted = event { error.tookEffect = true }
            fail(request, client, error, state(of: session))
        } else {
            reply(request, client, state(of: session))
        }
    }

    private mutating func controlRequest(_ request: Request, _ client: ClientID, _ event: PolicyEvent, field: String? = nil) {
        let outcome = run(event)
        if let error = outcome.error {
            var body = body(for: error)
            body.field = field
            return fail(request, client, body)
        }
        send(client, .reply(.success(request.id)))
    }

    /// `selectOutput`, `connectPort`, `disconnectPort`: a name that is not a port (POLICY section 4) is `badField`
    /// listing the names the request takes (outputs for `selectOutput`); an input port given to `selectOutput`
    /// is the engine's `badParam` (R3), which says so.
    private mutating func portRequest(_ request: Request, _ client: ClientID, _ name: String) {
        guard let port = Port(rawValue: name) else {
            let outputs = Port.allCases.filter(\.isOutput).map(\.rawValue).joined(separator: ", ")
            let inputs = Port.allCases.filter(\.isInput).map(\.rawValue).joined(separator: ", ")
            let expected =
                request.op == .selectOutput
                ? "is not an output port; expected one of: \(outputs)"
                : "is not a port; expected an output (\(outputs)) or an input (\(inputs))"
            return fail(request, client, badField("port", "'\(name)' \(expected)"))
        }
        let event: PolicyEvent =
            switch request.command {
            case .selectOutput: .outputSelected(port)
            case .connectPort: .portConnected(port)
            default: .portDisconnected(port)
            }
        controlRequest(request, client, event, field: "port")
    }

    /// `resumeStream`: a stream a port going away stopped (R4) plays again where it is now, as a restart by
    /// its app would have it (O3 ends with a restart). The way back for an app that cannot pause; any other
    /// stream is refused, saying what holds it.
    private mutating func resumeStream(_ request: Request, _ client: ClientID, _ number: Int) {
        let stream = StreamID(number)
        guard let session = engine.session(of: stream), let verdict = engine.verdict(of: stream) else {
            return fail(request, client, badField("stream", "there is no stream \(number); `audiosessionctl status` lists them"))
        }
        guard engine.isRunning(stream), verdict.level == .silent, verdict.reason.rule == .R4 else {
            let why = "stream \(number) is \(Self.word(for: verdict.level)): \(explainer.describe(verdict.reason))"
            return fail(request, client, ErrorBody(code: PolicyErrorCode.badParam.rawValue, message: "only a running stream stopped by a port that went away can be resumed; \(why)", field: "stream"))
        }
        effects.append(.log("stream \(number) resumed by the user after \(explainer.describe(verdict.reason))"))
        controlRequest(request, client, .streamStarted(stream, session: session, direction: .output))
    }

    /// A session by number or app name.
    package func resolve(_ reference: String) -> SessionID? {
        if let number = Int(reference), engine.hasSession(SessionID(number)) { return SessionID(number) }
        return sessionNames.filter { $0.value == reference }.keys.min()
    }

    // MARK: Replies

    private mutating func reply(_ request: Request, _ client: ClientID, _ state: SessionStateBody?, session: SessionID? = nil) {
        send(client, .reply(.success(request.id, ReplyResult(session: session?.rawValue, state: state))))
    }

    package mutating func fail(
        _ request: Request,
        _ client: ClientID,
        _ error: ErrorBody,
        _ state: SessionStateBody? = nil
    ) {
        send(client, .reply(.failure(request.id, error, state.map { ReplyResult(state: $0) })))
    }

    /// The engine's message, with the other session named when one is involved ("a call (phone) is active").
    private func body(for error: PolicyError) -> ErrorBody {
        ErrorBody(
            code: error.code.rawValue,
            message: error.reason.session == nil ? error.message : "\(error.message): \(explainer.describe(error.reason))",
            rule: error.reason.rule,
            tookEffect: error.code == .isBusy ? true : nil
        )
    }

    private func badField(_ field: String, _ message: String) -> ErrorBody {
        ErrorBody(code: ProtocolError.Code.badField.rawValue, message: "\(field): \(message)", field: field)
    }

    /// A `pauseStream` or `removeStream` of a stream the client never started (streams a client plays or records
    /// itself are reported by it; the daemon sends their verdicts back as `streamVerdict` events).
    private func neverStarted(_ number: Int) -> ErrorBody {
        badField("stream", "stream \(number) was never started")
    }

    private func unknownSession(_ reference: String) -> ErrorBody {
        ErrorBody(code: PolicyErrorCode.badParam.rawValue, message: "session: there is no session '\(reference)'", field: "session")
    }
}
