import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionScenario
import AudioSessionTestSupport
import Foundation
import FoundationXML
import Logging
import Testing

@testable import AudioSessionCLI
@testable import AudioSessionDaemon

/// `audiosessionctl replay --svg` and `journal export --svg`: a replay drawn as a picture, one lane per session,
/// that parses, renders, fits, says why on hover and is the same bytes every time.
@Suite(.timeLimit(.minutes(4))) struct ReplayPictureTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let scenarios = root + "/Tests/Scenarios"
    static let phoneCall = scenarios + "/a-unaware-phone-call-interrupts-music-that-may-resume.yaml"
    static let phonesDay = scenarios + "/x-a-phones-day.yaml"

    @Test(arguments: [phoneCall, phonesDay])
    func aBundledScenarioIsWellFormedWithALanePerSessionAndItsReasons(file: String) throws {
        let folder = try PictureFolder()
        let first = ctl(["replay", file, "--svg", folder.path + "/first.svg"])
        #expect(first.status == 0, "\(first.output)\(first.errors)")
        #expect(first.output.contains("drew \(folder.path)/first.svg"), "\(first.output)")
        let second = ctl(["replay", "--svg", folder.path + "/second.svg", file])
        #expect(second.status == 0)
        let bytes = try Data(contentsOf: URL(filePath: folder.path + "/first.svg"))
        #expect(bytes == (try Data(contentsOf: URL(filePath: folder.path + "/second.svg"))), "drawn twice, the same")

        let picture = try SVGDocument(bytes)
        let scenario = try ScenarioLoader.load(path: file)
        #expect(picture.lanes == scenario.sessions.map(\.name))
        #expect(picture.titles.contains { $0.contains("music is interrupted: interrupted by phone (A6) at step") })
        #expect(picture.titles.contains { $0.hasPrefix("step") && $0.contains("music interruption began") })
        #expect(picture.titles.contains { $0.contains("interruption ended shouldResume=true") })
        try picture.expectEveryLabelInside()
    }

    @Test func twentySessionsGetTwentyLanesAndEveryLabelFits() throws {
        let folder = try PictureFolder()
        let file = try folder.write("twenty.yaml", Self.twentySessions)
        let svg = folder.path + "/twenty.svg"
        let run = ctl(["replay", file, "--svg", svg])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let picture = try SVGDocument(try Data(contentsOf: URL(filePath: svg)))
        #expect(picture.lanes.count == 20)
        #expect(picture.lanes.first == "app01")
        #expect(picture.title == #"Twenty apps & "quotes" <at once> it's"#, "markup characters survive escaping")
        #expect(picture.texts.contains { $0.content == "an-app-with-a-name-far-too-…" }, "a long name is cut")
        #expect(picture.titles.contains { $0.hasPrefix("an-app-with-a-name-far-too-long-for-its-lane:") })
        try picture.expectEveryLabelInside()

        let two = folder.path + "/two.svg"
        #expect(ctl(["replay", Self.phoneCall, "--svg", two]).status == 0)
        let fewLanes = try SVGDocument(try Data(contentsOf: URL(filePath: two)))
        #expect(fewLanes.laneNameSize > picture.laneNameSize, "fewer lanes, bigger names")
    }

    @Test func aFailingScenarioIsDrawnWithItsFailedStepMarkedAndStillFails() throws {
        let folder = try PictureFolder()
        let file = try folder.write("failing.yaml", Self.failing)
        let svg = folder.path + "/failing.svg"
        let run = ctl(["replay", file, "--svg", svg])
        #expect(run.status == 1, "the replay's status is kept")
        #expect(run.output.contains("step 3 (expect) failed"), "\(run.output)")
        let picture = try SVGDocument(try Data(contentsOf: URL(filePath: svg)))
        #expect(picture.failedSteps == 1)
        #expect(
            picture.titles.contains { $0.hasPrefix("step 3 failed\n") && $0.contains("expected: music.state: active") }
        )
        try picture.expectEveryLabelInside()
    }

    /// rsvg-convert, a real renderer, turns each picture into a PNG.
    @Test func aRealRendererDrawsEveryPicture() throws {
        let renderer = try #require(
            ChildProcess.executable(named: "rsvg-convert"),
            "rsvg-convert is not on PATH: install librsvg2-bin (scripts/install-deps.sh does)"
        )
        let folder = try PictureFolder()
        let twenty = try folder.write("twenty.yaml", Self.twentySessions)
        let failing = try folder.write("failing.yaml", Self.failing)
        for (index, file) in [Self.phoneCall, Self.phonesDay, twenty, failing].enumerated() {
            let svg = folder.path + "/\(index).svg"
            let png = folder.path + "/\(index).png"
            _ = ctl(["replay", file, "--svg", svg])
            let result = try ChildProcess.run(
                renderer,
                ["--format", "png", "--output", png, svg],
                environment: ChildProcess.environment([:]),
                timeout: .seconds(60)
            )
            #expect(result.status == 0, "rsvg-convert \(svg): \(result.standardError)")
            let bytes = try Data(contentsOf: URL(filePath: png))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG signature")
            #expect(bytes.count > 1024, "\(png) has \(bytes.count) bytes")
        }
    }

    @Test func svgTakesExactlyOneScenarioFile() throws {
        let folder = try PictureFolder()
        for paths in [[Self.phoneCall, Self.phonesDay], [Self.scenarios]] {
            let run = ctl(["replay"] + paths + ["--svg", folder.path + "/p.svg"])
            #expect(run.status != 0)
            #expect(run.errors.hasPrefix("audiosessionctl: --svg draws one scenario"), "\(run.errors)")
            #expect(run.errors.split(separator: "\n").count == 1, "one line: \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/p.svg"))
        }
        let live = ctl(["replay", "--live", Self.phoneCall, "--svg", folder.path + "/p.svg"])
        #expect(live.status != 0)
        #expect(live.errors.hasPrefix("audiosessionctl: --svg draws a replay against the engine"), "\(live.errors)")
        #expect(live.errors.split(separator: "\n").count == 1, "one line: \(live.errors)")
    }

    @Test func aPathThatCannotBeWrittenIsOneLineNamingItAndWhy() throws {
        let folder = try PictureFolder()
        for (path, reason) in [
            (folder.path + "/no/such/folder/p.svg", "No such file or directory"), (folder.path, "Is a directory"),
        ] {
            let run = ctl(["replay", Self.phoneCall, "--svg", path])
            #expect(run.status != 0)
            #expect(run.errors == "audiosessionctl: cannot write \(path): \(reason)\n")
        }
    }

    /// `journal export --svg`: a daemon's event log, exported and drawn.
    @Test func aJournalExportIsDrawnToo() throws {
        let folder = try PictureFolder()
        let state = try #require(try StateDirectory.open(folder.path + "/state", logger: Logger(label: "test")))
        var keeper = StateKeeper(
            directory: state,
            settings: StateSettings(),
            eventLogLimit: 1000,
            logger: Logger(label: "test")
        )
        var driver = CoreDriver()
        keeper.begin(&driver.core)
        for input: DaemonInput in [
            .sound(.serverConnected), .sound(.portAvailable(.speaker)), .sound(.inventoryTaken),
            .sound(CoreDriver.stream(1, role: "music", app: "radio")),
            .sound(CoreDriver.stream(2, role: "phone", app: "dialer")), .sound(.portAvailable(.headphones)),
        ] {
            _ = driver.core.handle(input)
            keeper.after(&driver.core)
        }
        keeper.finish()
        let svg = folder.path + "/journal.svg"
        let run = ctl(["journal", "export", "--state-dir", folder.path + "/state", "--svg", svg])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("sessions:"), "the scenario still goes to standard output")
        #expect(run.errors.contains("\(svg): "), "\(run.errors)")
        let picture = try SVGDocument(try Data(contentsOf: URL(filePath: svg)))
        #expect(picture.lanes.count == 2, "\(picture.lanes)")
        #expect(picture.titles.contains { $0.contains("interrupted by") })
        try picture.expectEveryLabelInside()
        withExtendedLifetime(state) {}

        let unwritable = ctl(["journal", "export", "--state-dir", folder.path + "/state", "--svg", folder.path])
        #expect(unwritable.status != 0)
        #expect(unwritable.errors.hasSuffix("audiosessionctl: cannot write \(folder.path): Is a directory\n"))
    }

    /// Every `replay` command README.md, docs/CLI.md and docs/SCENARIOS.md show in their code runs and passes
    /// (all but `--live` ones, which need a daemon, and synopses with FILE in them); a picture they show from
    /// docs/pictures is what the tool draws now.
    @Test func theDocumentedReplayCommandsRunAndTheirPicturesAreCurrent() throws {
        let folder = try PictureFolder()
        var commands = 0
        var pictures = 0
        for document in ["README.md", "docs/CLI.md", "docs/SCENARIOS.md"] {
            let text = try String(contentsOfFile: Self.root + "/" + document, encoding: .utf8)
            var inCode = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inCode.toggle() }
                guard inCode && line.contains("audiosessionctl replay") && !line.contains("--live") else { continue }
                var words = line.split(separator: " ").map(String.init)
                if let comment = words.firstIndex(where: { $0.hasPrefix("#") }) { words.removeSubrange(comment...) }
                if words.contains(where: { $0.contains("FILE") }) { continue }
                words.removeFirst(words.firstIndex { $0.hasSuffix("audiosessionctl") }.map { $0 + 1 } ?? 0)
                var shown = ""
                if let at = words.firstIndex(of: "--svg") {
                    shown = words[at + 1]
                    words[at + 1] = folder.path + "/\(commands).svg"
                    pictures += 1
                }
                let arguments = words.map { word in
                    FileManager.default.fileExists(atPath: Self.root + "/" + word) ? Self.root + "/" + word : word
                }
                let run = ctl(arguments)
                #expect(run.status == 0, "\(document): `\(line)`: \(run.errors)")
                if shown.hasPrefix("docs/pictures/") {
                    let committed = try Data(contentsOf: URL(filePath: Self.root + "/" + shown))
                    let drawn = try Data(contentsOf: URL(filePath: folder.path + "/\(commands).svg"))
                    #expect(committed == drawn, "\(shown) is not what the tool draws now: run `\(line)` from the root")
                }
                commands += 1
            }
            let folderOfDocument = URL(filePath: Self.root + "/" + document).deletingLastPathComponent().path
            for link in text.matches(of: #/\]\(([^)\s]*pictures/[^)\s]+\.svg)\)/#) {
                let path = folderOfDocument + "/" + link.output.1
                #expect(FileManager.default.fileExists(atPath: path), "\(document) shows \(link.output.1)")
            }
        }
        #expect(commands >= 6, "README.md, docs/CLI.md and docs/SCENARIOS.md show replay commands")
        #expect(pictures >= 2, "README.md and docs/SCENARIOS.md each show an --svg command")
    }

    @Test func xmlTextIsEscaped() {
        #expect(TimelineXML.escape(#"a & b < c > d "e" 'f'"#) == "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;")
        #expect(TimelineXML.escape("bell\u{7}") == "bell\u{FFFD}")
        #expect(
            TimelineXML.number(12.0) == "12" && TimelineXML.number(-0.04) == "0" && TimelineXML.number(3.25) == "3.3"
        )
    }

    // MARK: Fixtures

    func ctl(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        var output = ""
        var errors = ""
        let status = AudioSessionCtl.execute(arguments, output: &output, errors: &errors)
        return (status, output, errors)
    }

    /// Twenty playback and ambient apps: they take turns, headphones come, the switch goes silent.
    static let twentySessions: String = {
        var names = (1...19).map { String(format: "app%02d", $0) }
        names.append("an-app-with-a-name-far-too-long-for-its-lane")
        let sessions = names.enumerated().map { index, name in
            "  \(name): { category: \(index.isMultiple(of: 3) ? "playback" : "ambient") }"
        }
        let plays = names.prefix(8).map { "  - play: \($0)" } + ["  - play: \(names[19])"]
        return """
            name: 'Twenty apps & "quotes" <at once> it''s'
            device: { outputs: [speaker] }
            sessions:
            \(sessions.joined(separator: "\n"))
            steps:
            \(plays.joined(separator: "\n"))
              - connect: headphones
              - silentSwitch: silent
              - screen: locked
              - play: app10
              - pause: app10
              - expect:
                  sessions:
                    app01: { state: interrupted }
              - selectOutput: speaker
              - disconnect: headphones
              - deactivate: app10
                notifyOthers: true
            """
    }()

    static let failing = """
        name: A file that expects the wrong thing
        sessions:
          music: { category: playback }
          phone: { category: playAndRecord, mode: voiceChat, call: true }
        steps:
          - play: music
          - activate: phone
          - expect:
              sessions:
                music: { state: active }
          - deactivate: phone
            notifyOthers: true
        """
}

/// A folder of its own under the temporary directory, removed when the value goes.
final class PictureFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/replay-picture-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        return path + "/" + name
    }
}

/// An SVG file read back with XMLParser: what the tests look at.
final class SVGDocument: NSObject, XMLParserDelegate {
    struct Text {
        var attributes: [String: String]
        var content: String
    }

    private(set) var width = 0.0
    private(set) var height = 0.0
    /// The `<title>` of the whole picture.
    private(set) var title = ""
    /// Every `<title>`'s text.
    private(set) var titles: [String] = []
    /// Every `<text>`, its attributes and words.
    private(set) var texts: [Text] = []
    /// Each lane's name, from the lane's own title ("music: playback").
    private(set) var lanes: [String] = []
    private(set) var failedSteps = 0
    private var open: [(name: String, attributes: [String: String], text: String)] = []
    private var error: (any Error)?

    init(_ data: Data) throws {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else {
            throw PictureError("the SVG does not parse: \(parser.parserError.map { "\($0)" } ?? "unknown error")")
        }
        if let error { throw error }
    }

    /// The font size of the lanes' names.
    var laneNameSize: Double {
        texts.first { $0.attributes["font-weight"] == "bold" && $0.content == lanes.first }
            .flatMap { Double($0.attributes["font-size"] ?? "") } ?? 0
    }

    func parser(
        _ parser: XMLParser,
        didStartElement name: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "svg" {
            width = Double(attributes["width"] ?? "") ?? 0
            height = Double(attributes["height"] ?? "") ?? 0
        }
        if name == "rect" && attributes["class"] == "failed" { failedSteps += 1 }
        open.append((name, attributes, ""))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !open.isEmpty { open[open.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard let element = open.popLast() else { return }
        switch name {
        case "title":
            titles.append(element.text)
            if open.count == 1 { title = element.text }
            if let parent = open.last, parent.attributes["class"] == "lane", let colon = element.text.lastIndex(of: ":")
            {
                lanes.append(String(element.text[..<colon]))
            }
        case "text":
            texts.append(Text(attributes: element.attributes, content: element.text))
        default:
            break
        }
    }

    /// Every text's box, from its position, size and a monospace character 0.62 of the size wide, is inside the
    /// picture; lane names do not overlap.
    func expectEveryLabelInside(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        #expect(width > 0 && height > 0, sourceLocation: sourceLocation)
        var nameBoxes: [(top: Double, bottom: Double)] = []
        for text in texts {
            let size = try #require(Double(text.attributes["font-size"] ?? ""), sourceLocation: sourceLocation)
            let x = try #require(Double(text.attributes["x"] ?? ""), sourceLocation: sourceLocation)
            let y = try #require(Double(text.attributes["y"] ?? ""), sourceLocation: sourceLocation)
            let cells = text.content.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 2 : 1) }
            let length = Double(cells) * size * 0.62
            let upright = text.attributes["transform"] == nil
            #expect(upright || text.attributes["transform"]?.hasPrefix("rotate(-90 ") == true)
            let (left, top, right, bottom) =
                upright
                ? (x, y - size * 0.8, x + length, y + size * 0.25) : (x - size * 0.8, y - length, x + size * 0.25, y)
            #expect(
                left >= 0 && top >= 0 && right <= width && bottom <= height,
                "'\(text.content)' at \(left),\(top)-\(right),\(bottom) is outside \(width)x\(height)",
                sourceLocation: sourceLocation
            )
            if text.attributes["font-weight"] == "bold"
                && lanes.contains(where: { $0.hasPrefix(text.content.prefix(20)) })
            {
                nameBoxes.append((top, bottom))
            }
        }
        for (upper, lower) in zip(nameBoxes, nameBoxes.dropFirst()) {
            #expect(upper.bottom <= lower.top, "lane names overlap", sourceLocation: sourceLocation)
        }
    }
}

struct PictureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
