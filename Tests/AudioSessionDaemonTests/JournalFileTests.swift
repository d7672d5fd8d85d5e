import AudioSessionDaemonCore
import Foundation
import Logging
import Testing

@testable import AudioSessionDaemon

/// The stream journal's file, without a sound server: what `JournalStreamKeeper` writes on the hot path (the
/// temporary, its entries encoded once each) is what `JSONEncoder` would write, and a daemon that starts after a
/// crash between the write and the rename reads the whole temporary as the newest journal, and a cut one not.
@Suite final class JournalFileTests {
    let directory: String
    let path: String
    let logger = Logger(label: "JournalFileTests")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        path = directory + "/streams.json"
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func eachWriteIsWhatJSONEncoderWritesOfTheWholeJournal() throws {
        let server = try JSONDecoder().decode(
            JournalServerIdentity.self,
            from: Data(
                #"{"address":"unix:/run/user/1000/pulse/native","name":"pulseaudio","host":"a \"b\" é","cookie":7}"#
                    .utf8
            )
        )
        var keeper = JournalStreamKeeper(path: path, server: server, logger: logger)
        let music = Self.entry(.sinkInput, 3, application: "radio \"live\" / ♪")
        let prompt = Self.entry(.sinkInput, 12, application: "maps\n\u{1}")
        let microphone = Self.entry(.sourceOutput, 2, application: "recorder")
        var ducked = music
        ducked.policyVolume = [16384, 16384]
        // Entries come and go and change; unchanged ones are not encoded again, and the order is the file's.
        let steps: [[JournalStreamEntry]] = [
            [music], [music, prompt], [ducked, prompt, microphone], [microphone], [],
        ]
        for entries in steps {
            let byOrigin = Dictionary(uniqueKeysWithValues: entries.map { ($0.origin, $0) })
            let written = keeper.sync(byOrigin)
            #expect(written)
            let expected = try StateFiles.encodeJSON(
                JournalStreams(
                    server: server,
                    entries: entries.sorted { ($0.kind.rawValue, $0.index) < ($1.kind.rawValue, $1.index) }
                ),
                for: path
            )
            let temporary = try Data(contentsOf: URL(fileURLWithPath: StateFiles.temporary(for: path)))
            #expect(
                temporary == expected,
                "\(String(decoding: temporary, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))"
            )
            keeper.commit()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == expected)
            // The next temporary is made ready, empty: the next write goes into it.
            #expect(FileManager.default.contents(atPath: StateFiles.temporary(for: path)) == Data())
        }
        #expect(keeper.writes == steps.count)
        // The connection ends: the temporary made ready is removed, and the journal stays.
        keeper.close()
        #expect(!FileManager.default.fileExists(atPath: StateFiles.temporary(for: path)))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aWholeTemporaryIsTheNewestJournalAndACutOneIsRemoved() throws {
        var keeper = try plainKeeper()
        let music = Self.music
        keeper.sync([music.origin: music])
        keeper.commit()
        // The next write is made, and the daemon dies before its rename: the temporary is the journal.
        let call = Self.call
        keeper.sync([music.origin: music, call.origin: call])
        let newest = try #require(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger))
        #expect(newest.entries.map(\.index) == [3, 4])

        // Cut short (the daemon died while writing it): removed, and the file before it is the journal.
        let whole = try Data(contentsOf: URL(fileURLWithPath: StateFiles.temporary(for: path)))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: StateFiles.temporary(for: path)))
        #expect(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger) == nil)
        #expect(!FileManager.default.fileExists(atPath: StateFiles.temporary(for: path)))
        let file = try #require(StateFiles.loadContent(JournalStreams.self, from: path, logger: logger))
        #expect(file.entries.map(\.index) == [3])
    }

    /// Two writes in one turn (no commit between): the second names the first's temporary before it writes its
    /// own, so the newest whole journal is never removed before the next is whole.
    @Test func aSecondWriteBeforeTheCommitNamesTheFirstTemporaryFirst() throws {
        var keeper = try plainKeeper()
        let (music, call) = (Self.music, Self.call)
        keeper.sync([music.origin: music])
        keeper.sync([music.origin: music, call.origin: call])
        let file = try #require(StateFiles.loadContent(JournalStreams.self, from: path, logger: logger))
        #expect(file.entries.map(\.index) == [3])
        let newest = try #require(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger))
        #expect(newest.entries.map(\.index) == [3, 4])
        keeper.commit()
        #expect(
            try #require(StateFiles.loadContent(JournalStreams.self, from: path, logger: logger)).entries.count == 2
        )
    }

    /// An entry's JSON is written by hand on the hot path (`JournalEntryJSON`): it is what `JSONEncoder` writes,
    /// byte for byte, with every optional present or absent and strings that need escaping (every ASCII
    /// character, quotes, slashes, control characters) or none (beyond ASCII, a line separator, an emoji).
    @Test(arguments: [false, true])
    func anEntrysJSONIsWhatJSONEncoderWrites(_ optionalsPresent: Bool) throws {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let strings = [ascii, "radio \"live\" / ♪ \\ é", "line\u{2028}separator 🎧", "", "x"]
        for (position, text) in strings.enumerated() {
            let entry = JournalStreamEntry(
                kind: position % 2 == 0 ? .sinkInput : .sourceOutput,
                index: UInt32.max - UInt32(position),
                application: optionalsPresent ? text : nil,
                processID: optionalsPresent ? "\(position)" : nil,
                role: optionalsPresent ? text : nil,
                userVolume: position == 3 ? [] : [65536, 0, UInt32(position)],
                userMuted: position % 2 == 0,
                policyVolume: [16384],
                policyMuted: position % 2 == 1,
                movedFrom: optionalsPresent ? text : nil,
                movedTo: optionalsPresent ? 0 : nil,
                restoreKey: optionalsPresent ? "sink-input-by-application-name:" + text : nil,
                restoreDevice: optionalsPresent ? text : nil
            )
            let written = JournalEntryJSON.encode(entry)
            let expected = try StateFiles.encodeJSON(entry, for: path).dropLast()
            #expect(
                written == expected,
                "\(String(decoding: written, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))"
            )
            #expect(try JSONDecoder().decode(JournalStreamEntry.self, from: written) == entry)
        }
    }

    /// The temporary made ready after a commit is written into by the next sync, unless it lost its name (then
    /// the sync writes a new one, by name); an empty temporary left by a daemon that died is removed, silently,
    /// at the next start, and the named journal is used.
    @Test func aTemporaryMadeReadyIsWrittenIntoOrReplacedAndAnEmptyOneIsNoJournal() throws {
        var keeper = try plainKeeper()
        let (music, call) = (Self.music, Self.call)
        keeper.sync([music.origin: music])
        keeper.commit()
        let temporary = StateFiles.temporary(for: path)
        var ready = stat()
        #expect(lstat(temporary, &ready) == 0 && ready.st_size == 0)
        keeper.sync([music.origin: music, call.origin: call])
        var written = stat()
        #expect(lstat(temporary, &written) == 0 && written.st_ino == ready.st_ino && written.st_size > 0)
        #expect(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger)?.entries.count == 2)

        // Removed behind the keeper's back: the next sync writes a temporary by name.
        keeper.commit()
        try FileManager.default.removeItem(atPath: temporary)
        keeper.sync([music.origin: music])
        #expect(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger)?.entries.count == 1)

        // A daemon that died with an empty temporary made ready: no journal there; the file is used.
        keeper.commit()
        #expect(FileManager.default.contents(atPath: temporary) == Data())
        #expect(StateFiles.loadTemporary(JournalStreams.self, for: path, logger: logger) == nil)
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(StateFiles.loadContent(JournalStreams.self, from: path, logger: logger)?.entries.count == 1)
    }

    static let music = entry(.sinkInput, 3, application: "radio")
    static let call = entry(.sinkInput, 4, application: "call")

    /// A keeper of `path` for a plain server identity.
    func plainKeeper() throws -> JournalStreamKeeper {
        let server = try JSONDecoder().decode(
            JournalServerIdentity.self,
            from: Data(#"{"address":"default","name":"pulseaudio","host":"vm","cookie":1}"#.utf8)
        )
        return JournalStreamKeeper(path: path, server: server, logger: logger)
    }

    static func entry(_ kind: JournalStreamEntry.Kind, _ index: UInt32, application: String) -> JournalStreamEntry {
        JournalStreamEntry(
            kind: kind,
            index: index,
            application: application,
            processID: "\(1000 + index)",
            role: "music",
            userVolume: [65536, 65536],
            userMuted: false,
            policyVolume: [0, 0],
            policyMuted: false,
            restoreKey: "sink-input-by-application-name:\(application)"
        )
    }
}
