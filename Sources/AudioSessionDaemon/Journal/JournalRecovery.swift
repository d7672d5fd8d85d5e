import AudioSessionDaemonCore
import Logging
import PulseBackend

/// At connect, before the policy sees any stream: every stream the journal says the policy had changed, and
/// that still plays on the same server instance, gets its user's values back (volume, mute; the device only if
/// the policy had moved it and it is still where the policy put it). A value someone changed since (not what
/// the policy left) is the user's and stays. Then the journal is cleared; the policy applies anew, taking the
/// restored values as the user's.
struct JournalRecovery {
    let connection: PulseConnection
    let logger: Logger

    struct Report: Equatable {
        var restored = 0
        var writes = 0
        var gone = 0
        var skipped = 0
    }

    /// Recovers what `path` holds for `server`, then clears it. Returns the keeper of the new journal.
    func recover(path: String, server: JournalServerIdentity) async -> JournalStreamKeeper {
        let started = ContinuousClock.now
        let newest = JournalSlots.newest(for: path, logger: logger)
        var keeper = JournalStreamKeeper(path: path, server: server, logger: logger, after: newest)
        guard let journal = newest?.journal, !journal.entries.isEmpty else { return keeper }
        guard journal.server == server else {
            logger.warning(
                "stream journal: \(journal.entries.count) entries are from another sound server instance (\(journal.server?.description ?? "unknown")), not this one (\(server)); not applied"
            )
            keeper.reset()
            return keeper
        }
        var report = Report()
        for entry in journal.entries {
            await recover(entry, &report)
        }
        logger.notice(
            "stream journal: \(report.restored) of \(journal.entries.count) streams given their user's values back (\(report.writes) writes, \(report.gone) ended meanwhile, \(report.skipped) left as the user set them) in \(ContinuousClock.now - started)"
        )
        keeper.reset()
        return keeper
    }

    private func recover(_ entry: JournalStreamEntry, _ report: inout Report) async {
        do {
            guard let current = try await currentValues(of: entry), entry.isSameStream(current.properties) else {
                return await streamEnded(entry, &report)
            }
            let writes = try await restore(entry, volume: current.volume, muted: current.muted, device: current.device)
            report.writes += writes
            if writes > 0 { report.restored += 1 } else { report.skipped += 1 }
        } catch {
            logger.warning("stream journal: \(entry.kind.rawValue) \(entry.index) not restored: \(error)")
        }
    }

    /// What the server reports of the entry's stream now; nil when there is no such stream.
    private func currentValues(
        of entry: JournalStreamEntry
    ) async throws -> (volume: PulseVolume, muted: Bool, device: UInt32, properties: [String: String])? {
        switch entry.kind {
        case .sinkInput:
            try await connection.sinkInput(entry.index).map { ($0.volume, $0.muted, $0.sinkIndex, $0.properties) }
        case .sourceOutput:
            try await connection.sourceOutput(entry.index).map { ($0.volume, $0.muted, $0.sourceIndex, $0.properties) }
        }
    }

    /// Puts back what the policy changed and nobody changed since; returns the number of writes.
    private func restore(_ entry: JournalStreamEntry, volume: PulseVolume, muted: Bool, device: UInt32) async throws
        -> Int
    {
        let isSink = entry.kind == .sinkInput
        var writes = 0
        let user = PulseVolume(channels: entry.userVolume)
        if volume != user {
            if entry.isPolicyVolume(volume) {
                if isSink {
                    try await connection.setSinkInputVolume(entry.index, user)
                } else {
                    try await connection.setSourceOutputVolume(entry.index, user)
                }
                writes += 1
            } else {
                logger.info(
                    "stream journal: \(entry.kind.rawValue) \(entry.index) has volume \(volume), not the policy's: the user's since, kept"
                )
            }
        }
        // The policy silences with a volume of 0 (given back above) and leaves the flag to the user; a mute an
        // older daemon set is taken back, never one the user set.
        if muted && !entry.userMuted && entry.policyMuted {
            if isSink {
                try await connection.setSinkInputMute(entry.index, false)
            } else {
                try await connection.setSourceOutputMute(entry.index, false)
            }
            writes += 1
        }
        if let from = entry.movedFrom, let to = entry.movedTo, device == to {
            if isSink, let sink = try await connection.sinks().first(where: { $0.name == from }) {
                try await connection.moveSinkInput(entry.index, toSink: sink.index)
                writes += 1
            } else if !isSink, let source = try await connection.sources().first(where: { $0.name == from }) {
                try await connection.moveSourceOutput(entry.index, toSource: source.index)
                writes += 1
            }
        }
        if writes > 0 {
            logger.info(
                "stream journal: \(entry.kind.rawValue) \(entry.index) (\(entry.application ?? "?")) given back volume \(user), muted \(entry.userMuted)\(entry.movedFrom.map { ", device \($0)" } ?? "")"
            )
        }
        return writes
    }

    /// The stream ended while no daemon watched: module-stream-restore may have saved the policy's values for
    /// the app's next stream; they are given the user's back, as when a stream ends under a running daemon.
    private func streamEnded(_ entry: JournalStreamEntry, _ report: inout Report) async {
        report.gone += 1
        guard let key = entry.restoreKey else { return }
        do {
            guard try await connection.streamRestoreEntry(key) != nil else { return }
            let mended = PulseStreamRestoreEntry(
                key: key,
                volume: PulseVolume(channels: entry.userVolume),
                muted: entry.userMuted,
                device: entry.restoreDevice
            )
            try await connection.writeStreamRestoreEntry(mended)
            logger.info(
                "stream journal: \(entry.kind.rawValue) \(entry.index) ended meanwhile; saved state of \(key) given back the user's values"
            )
        } catch {
            logger.debug("stream journal: no saved stream state to mend for \(key): \(error)")
        }
    }
}
