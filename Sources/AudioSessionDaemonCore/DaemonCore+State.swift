import AudioSessionProtocol

extension DaemonCore {
    /// Whether `request` from `client` would be taken (not refused as a control request from another user):
    /// only then is the state write it needs made ahead of it.
    package func permits(_ request: Request, from client: ClientID) -> Bool {
        guard let record = clients[client] else { return false }
        return !request.op.isControl || isPrivileged(record.peer)
    }

    /// The reply to a request whose state write failed (a full disk): what could not be written, where and why,
    /// and that nothing was changed.
    package func stateUnavailable(_ problem: StateWriteError, _ request: Request) -> ErrorBody {
        let unchanged =
            switch StateNeed(request) {
            case .setting: "the setting was not changed"
            default: "no stream is silenced, ducked or moved that could not be given back after a crash"
            }
        return ErrorBody(
            code: ProtocolError.Code.stateUnavailable.rawValue,
            message:
                "\(request.op.rawValue) refused: the daemon cannot write its state: \(problem); \(unchanged); free space in the state directory and try again"
        )
    }
}
