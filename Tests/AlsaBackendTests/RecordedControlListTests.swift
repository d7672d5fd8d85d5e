import AlsaBackend
import Foundation
import Testing

@Suite struct RecordedControlListTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let expected: [String: [JackControl]] = [
        "intel-hda-laptop.amixer": [
            JackControl(name: "HDMI/DP,pcm=3 Jack", isPlugged: false),
            JackControl(name: "HDMI/DP,pcm=7 Jack", isPlugged: false),
            JackControl(name: "Headphone Jack", isPlugged: true),
            JackControl(name: "Internal Mic Phantom Jack", isPlugged: true, isPhantom: true),
            JackControl(name: "Mic Jack", isPlugged: false),
            JackControl(name: "Speaker Phantom Jack", isPlugged: true, isPhantom: true),
        ],
        "usb-headset.amixer": [],
        "laptop-headset-plugged.amixer": [
            JackControl(name: "Headphone Jack", isPlugged: true),
            JackControl(name: "Headset Mic Jack", isPlugged: true),
            JackControl(name: "Line Out Jack", isPlugged: true),
            JackControl(name: "Speaker Phantom Jack", isPlugged: true, isPhantom: true),
        ],
    ]

    static func jacks(_ fixture: String) throws -> [JackControl] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(fixture), encoding: .utf8)
        return try RecordedControlList.parse(text, source: fixture)
    }

    @Test(arguments: expected.keys.sorted())
    func fixtureParsesToItsJacks(fixture: String) throws {
        #expect(try Self.jacks(fixture) == Self.expected[fixture])
    }

    @Test func phantomIsTakenFromTheName() {
        #expect(JackControl(name: "Speaker Phantom Jack", isPlugged: true).isPhantom)
        #expect(!JackControl(name: "Headphone Jack", isPlugged: true).isPhantom)
    }

    @Test func changesBetweenSnapshots() throws {
        let laptop = try Self.jacks("intel-hda-laptop.amixer")
        let plugged = try Self.jacks("laptop-headset-plugged.amixer")
        #expect(
            JackChanges(from: laptop, to: plugged)
                == JackChanges(
                    plugged: ["Headset Mic Jack", "Line Out Jack"],
                    unplugged: ["Internal Mic Phantom Jack"]
                )
        )
        var unplugged = plugged
        unplugged[0].isPlugged = false
        #expect(JackChanges(from: plugged, to: unplugged) == JackChanges(unplugged: ["Headphone Jack"]))
        #expect(JackChanges(from: plugged, to: plugged).isEmpty)
        #expect(JackChanges(from: [], to: plugged).plugged == plugged.map(\.name))
    }

    @Test func malformedLineNamesSourceAndLine() throws {
        let text = """
            numid=18,iface=CARD,name='Headphone Jack'
              ; type=BOOLEAN,access=r-------,values=1
            Headphone Jack is on
            """
        let error = try #require(throws: AlsaError.self) { try RecordedControlList.parse(text, source: "bad.amixer") }
        #expect(error.code == .badControlList)
        #expect(error.message.hasPrefix("bad.amixer:3: expected a 'numid=' line"))
        #expect(error.message.contains("Headphone Jack is on"))
    }

    @Test func jackWithBadValue() throws {
        let text = """
            numid=18,iface=CARD,name='Headphone Jack'
              ; type=BOOLEAN,access=r-------,values=1
              : values=maybe
            """
        let error = try #require(throws: AlsaError.self) { try RecordedControlList.parse(text, source: "value.amixer") }
        #expect(error.code == .badControlList)
        #expect(error.message.contains("value.amixer:3: value 'maybe' of jack 'Headphone Jack' must be on or off"))
    }

    @Test func controlWithoutValues() throws {
        let text = """
            numid=18,iface=CARD,name='Headphone Jack'
              ; type=BOOLEAN,access=r-------,values=1
            numid=17,iface=CARD,name='Mic Jack'
              ; type=BOOLEAN,access=r-------,values=1
              : values=off
            """
        let error = try #require(throws: AlsaError.self) { try RecordedControlList.parse(text, source: "short.amixer") }
        #expect(error.message.contains("short.amixer:1: control 'Headphone Jack' has no '  : values=' line"))
    }

    @Test func unterminatedQuote() throws {
        let error = try #require(throws: AlsaError.self) {
            try RecordedControlList.parse("numid=1,iface=CARD,name='Mic Jack\n", source: "quote.amixer")
        }
        #expect(error.message.contains("quote.amixer:1: the value of name has no closing quote"))
    }
}
