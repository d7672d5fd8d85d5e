import AudioSessionDaemonCore

/// One journal entry's JSON, byte for byte what `JSONEncoder` with `.sortedKeys` writes of it (`JournalFileTests`
/// holds the two together, strings that need escaping included). Written out here because an entry is encoded on
/// the path from a server event to the orders that answer it, where the encoder's generic machinery took about
/// 70 µs for one entry (it runs cold there, once per event); this takes a few. Every other state file, and the
/// decoding, stay with `JSONEncoder` and `JSONDecoder`.
enum JournalEntryJSON {
    static func encode(_ entry: JournalStreamEntry) -> [UInt8] {
        JSONText.object { json in
            json.member("application", entry.application)
            json.member("index", entry.index)
            json.member("kind", entry.kind.rawValue)
            json.member("movedFrom", entry.movedFrom)
            json.member("movedTo", entry.movedTo)
            json.member("policyMuted", entry.policyMuted)
            json.member("policyVolume", entry.policyVolume)
            json.member("processID", entry.processID)
            json.member("restoreDevice", entry.restoreDevice)
            json.member("restoreKey", entry.restoreKey)
            json.member("role", entry.role)
            json.member("userMuted", entry.userMuted)
            json.member("userVolume", entry.userVolume)
        }
    }
}
