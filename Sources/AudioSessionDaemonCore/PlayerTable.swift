import AudioSessionPolicy

/// What the session bus says of media players (MPRIS, POLICY section 6b), already as facts: the bus shell
/// (`PlayerBusService`) turns names, signals and replies into these.
package enum PlayerFact: Sendable, Equatable {
    /// A name `org.mpris.MediaPlayer2.*` has an owner, whose process is `processID` (the bus's word).
    case appeared(busName: String, processID: Int32)
    /// The name lost its owner (the player quit, or dropped its interface).
    case vanished(busName: String)
    /// The player's `PlaybackStatus` property changed, or was first read.
    case playbackStatus(busName: String, PlaybackStatus)
    /// The player answered a command the daemon sent it.
    case answered(busName: String, PlayerCommand)
    /// The player answered a command with an error, or not within the timeout it was sent with.
    case failed(busName: String, PlayerCommand, reason: String)
}

/// A command the daemon sends a player.
package enum PlayerCommand: String, Sendable, Equatable {
    case pause = "Pause"
    case play = "Play"
}

/// MPRIS's `PlaybackStatus`.
package enum PlaybackStatus: String, Sendable, Equatable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"
}

/// The players on the bus, by name, and which session each drives. Pure: the bus shell feeds it facts.
package struct PlayerTable: Sendable, Equatable {
    package init() {}

    package struct Entry: Sendable, Equatable {
        package var processID: Int32
        package var status: PlaybackStatus?
        /// The unaware app's session this player was found for; nil until one of its process's streams is seen.
        package var session: SessionID?
    }

    package private(set) var entries: [String: Entry] = [:]

    package mutating func add(_ busName: String, processID: Int32) {
        entries[busName] = Entry(processID: processID, session: entries[busName]?.session)
    }

    @discardableResult
    package mutating func remove(_ busName: String) -> Entry? { entries.removeValue(forKey: busName) }

    package mutating func setStatus(_ status: PlaybackStatus, of busName: String) {
        entries[busName]?.status = status
    }

    package mutating func bind(_ busName: String, to session: SessionID) { entries[busName]?.session = session }

    /// Forgets the sessions that ended.
    package mutating func unbind(_ session: SessionID) {
        for (name, entry) in entries where entry.session == session { entries[name]?.session = nil }
    }

    /// The player driving a session.
    package func busName(of session: SessionID) -> String? {
        entries.filter { $0.value.session == session }.keys.min()
    }

    /// The player a stream belongs to: the one whose process is the stream's, else the nearest of its
    /// ancestors' (`processLine`: the stream's process first, then its parent, and so on). A process with more
    /// than one player name (a browser's instances) gives the first name in order, so the choice is stable.
    package func player(forProcessLine processLine: [Int32]) -> String? {
        for processID in processLine {
            if let name = entries.filter({ $0.value.processID == processID }).keys.min() { return name }
        }
        return nil
    }

    /// MPRIS names: `org.mpris.MediaPlayer2.` and at least one more element.
    package static func isPlayerName(_ name: String) -> Bool {
        let prefix = "org.mpris.MediaPlayer2."
        return name.hasPrefix(prefix) && name.count > prefix.count
    }
}
