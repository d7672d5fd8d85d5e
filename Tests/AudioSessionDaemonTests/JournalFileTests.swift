import AudioSessionDaemonCore
import Foundation
import Locking
import Logging
import Testing

@testable import AudioSessionDaemon

/// The stream journal's files, without a sound server: each write of `JournalStreamKeeper` goes in place into
/// the file that does not hold the newest journal, numbered one past it (its entries encoded once each, as
/// `JSONEncoder` would), and a daemon that starts after a crash reads the newest whole one: not a write cut short,
/// whatever part of it is new.
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

    @Test func eachWriteGoesIntoTheOtherFileNumberedOnePastTheNewest() throws {
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
        ducked.values.policyVolume = [16384, 16384]
        // Entries come and go and change; unchanged ones are not encoded again, and the order is the file's. The
        // journal grows and shrinks: what a shorter write leaves of a longer one after its line end is no part
        // of it.
        let steps: [[JournalStreamEntry]] = [
            [music], [music, prompt], [ducked, prompt, microphone], [microphone], [],
        ]
        let files = JournalSlots.paths(for: path)
        #expect(files == [path, directory + "/streams.1.json"])
        for (position, entries) in steps.enumerated() {
            let byOrigin = Dictionary(uniqueKeysWithValues: entries.map { ($0.origin, $0) })
            let written = keeper.sync(byOrigin)
            #expect(written)
            let number = UInt64(position + 1)
            let expected = JournalStreams(
                server: server,
                entries: entries.sorted { ($0.kind.rawValue, $0.index) < ($1.kind.rawValue, $1.index) },
                write: number,
                end: number
            )
            let newest = try #require(JournalSlots.newest(for: path, logger: logger))
            #expect(newest.journal == expected && newest.write == number && newest.slot == position % 2)
            // The line as `JSONEncoder` would write it, but for the numbers, first and last.
            let line = try Self.firstLine(of: files[position % 2])
            let unnumbered = JournalStreams(server: server, entries: expected.entries)
            let encoded = try StateFiles.encodeJSON(unnumbered, for: path)
            let body = encoded.dropFirst().dropLast(2)  // `{`, and `}` with the line end
            #expect(line == Data("{\"write\":\(number),".utf8) + body + Data(",\"end\":\(number)}".utf8))
        }
        #expect(keeper.writes == steps.count)
        keeper.close()
        #expect(FileManager.default.fileExists(atPath: files[0]) && FileManager.default.fileExists(atPath: files[1]))
    }

    /// A write cut short by a crash (or a full disk) is new bytes, then what the file held: however far it got,
    /// it is not taken, and the other file's journal is the newest. Cut right after its number, it would read
    /// as a whole journal but for the number it ends with.
    @Test func aWriteCutShortIsNotTakenWhereverItWasCut() throws {
        var keeper = try plainKeeper()
        let (music, call) = (Self.music, Self.call)
        keeper.sync([music.origin: music])
        keeper.sync([music.origin: music, call.origin: call])
        let first = JournalSlots.paths(for: path)[0]
        let before = try #require(FileManager.default.contents(atPath: first))
        // Write 3 goes over write 1.
        keeper.sync([call.origin: call])
        let whole = try #require(FileManager.default.contents(atPath: first))
        #expect(JournalSlots.newest(for: path, logger: logger)?.write == 3)
        let numberEnds = "{\"write\":3,".utf8.count
        // (Cut at its last two bytes, `}` and the line end, it is whole: they are the same in every write.)
        for cut in [1, 5, numberEnds, numberEnds + 7, whole.count / 2, whole.count - 3] {
            let left = whole.prefix(cut) + before.dropFirst(cut)
            try left.write(to: URL(fileURLWithPath: first))
            let newest = try #require(JournalSlots.newest(for: path, logger: logger), "cut at \(cut)")
            #expect(newest.write == 2 && newest.journal.entries.map(\.index) == [3, 4], "cut at \(cut)")
        }
        // The cut right after the number reads as JSON: only its end tells it apart.
        let afterNumber = whole.prefix(numberEnds) + before.dropFirst(numberEnds)
        let read = try JSONDecoder().decode(JournalStreams.self, from: afterNumber.prefix { $0 != UInt8(ascii: "\n") })
        #expect(read.write == 3 && read.end == 1)
    }

    /// A journal an earlier daemon wrote whole (no numbers: renamed into place) is read as write 0; the next
    /// write goes into the other file, so that journal stays until one newer is whole.
    @Test func aJournalWrittenWholeWithoutNumbersIsReadAndKeptUntilANewerIsWhole() throws {
        let old = JournalStreams(entries: [Self.music])
        try StateFiles.encodeJSON(old, for: path).write(to: URL(fileURLWithPath: path))
        let found = try #require(JournalSlots.newest(for: path, logger: logger))
        #expect(found.write == 0 && found.slot == 0 && found.journal.entries == [Self.music])
        var keeper = JournalStreamKeeper(path: path, server: try plainKeeper().server, logger: logger, after: found)
        keeper.sync([Self.call.origin: Self.call])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == StateFiles.encodeJSON(old, for: path))
        let newest = try #require(JournalSlots.newest(for: path, logger: logger))
        #expect(newest.write == 1 && newest.slot == 1 && newest.journal.entries == [Self.call])
    }

    /// A file removed behind the keeper's back is made anew at the next write; one given a second name (a hard
    /// link planted to a file elsewhere) is moved aside and a file of its own made, so nothing is written
    /// through the other name.
    @Test func aFileRemovedOrLinkedBehindTheKeepersBackIsMadeAnew() throws {
        var keeper = try plainKeeper()
        let (music, call) = (Self.music, Self.call)
        let files = JournalSlots.paths(for: path)
        keeper.sync([music.origin: music])
        keeper.sync([music.origin: music, call.origin: call])
        try FileManager.default.removeItem(atPath: files[0])
        keeper.sync([call.origin: call])
        #expect(JournalSlots.newest(for: path, logger: logger)?.slot == 0)
        #expect(JournalSlots.newest(for: path, logger: logger)?.journal.entries == [call])

        let elsewhere = directory + "/elsewhere"
        #expect(link(files[1], elsewhere) == 0)
        let linked = try #require(FileManager.default.contents(atPath: elsewhere))
        keeper.sync([:])
        #expect(FileManager.default.contents(atPath: elsewhere) == linked)
        let newest = try #require(JournalSlots.newest(for: path, logger: logger))
        #expect(newest.slot == 1 && newest.write == 4 && newest.journal.entries.isEmpty)
        keeper.close()
    }

    /// A file that cannot be opened (here its folder is missing; on a machine, a read-only or full file system)
    /// fails every write of a turn the same way: the log tells it once and counts the rest, and says when the
    /// journal is written again.
    @Test func aFileThatCannotBeOpenedIsToldOnceAndItsFailedWritesCounted() throws {
        let lines = Locked<[String]>([])
        let recording = Logger(label: "JournalFileTests") { _ in RecordingLogHandler(lines: lines) }
        let folder = directory + "/later"
        let server = try plainKeeper().server
        var keeper = JournalStreamKeeper(path: folder + "/streams.json", server: server, logger: recording)
        for entries in [[Self.music], [Self.music, Self.call], [Self.call]] {
            let written = keeper.sync(Dictionary(uniqueKeysWithValues: entries.map { ($0.origin, $0) }))
            #expect(!written)
        }
        #expect(keeper.trouble.failedWrites == 3)
        let told = lines.withLock { $0 }
        #expect(told.count == 1, "\(told)")
        #expect(told.first?.contains("not written: cannot open \(folder)/streams.json") == true, "\(told)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let writtenAgain = keeper.sync([Self.music.origin: Self.music])
        #expect(writtenAgain)
        let after = lines.withLock { $0 }
        #expect(after.last?.contains("written again, after 3 failed writes") == true, "\(after)")
        keeper.close()
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
            let written = Data(JournalEntryJSON.encode(entry))
            let expected = try StateFiles.encodeJSON(entry, for: path).dropLast()
            #expect(
                written == expected,
                "\(String(decoding: written, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))"
            )
            #expect(try JSONDecoder().decode(JournalStreamEntry.self, from: written) == entry)
        }
    }

    /// The first line of the file at `path` (the journal's write, without what a longer one left after it).
    static func firstLine(of path: String) throws -> Data {
        let data = try #require(FileManager.default.contents(atPath: path))
        return data.prefix { $0 != UInt8(ascii: "\n") }
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

/// Keeps every line logged through it.
struct RecordingLogHandler: LogHandler {
    let lines: Locked<[String]>
    var logLevel = Logger.Level.trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}
