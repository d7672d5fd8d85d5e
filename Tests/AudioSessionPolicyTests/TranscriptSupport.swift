import AudioSessionPolicy

/// Short names for transcript tests: sessions and streams numbered as the tests declare them.
enum T {
    static let music = SessionID(1)
    static let video = SessionID(2)
    static let phone = SessionID(3)
    static let game = SessionID(4)
    static let nav = SessionID(5)

    static func output(of session: SessionID) -> StreamID { StreamID(session.rawValue * 10) }
    static func input(of session: SessionID) -> StreamID { StreamID(session.rawValue * 10 + 1) }

    static func app(
        _ name: String,
        _ category: Category,
        mode: Mode = .default,
        options: CategoryOptions = [],
        call: Bool = false,
        appState: AppState = .foreground
    ) -> SessionDeclaration {
        SessionDeclaration(
            appName: name,
            category: category,
            mode: mode,
            options: options,
            isCall: call,
            appState: appState
        )
    }
}

extension PolicyEngine {
    /// Handles an event and returns only its actions, for `#expect(engine.actions(...) == [...])`.
    mutating func actions(_ event: PolicyEvent) -> [PolicyAction] { handle(event).actions }

    /// Starts `session`'s output stream and drops the actions; for setting the scene.
    mutating func play(_ session: SessionID) {
        _ = handle(.streamStarted(T.output(of: session), session: session, direction: .output))
    }
}
