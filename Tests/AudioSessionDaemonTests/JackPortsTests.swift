import AlsaBackend
import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import Foundation
import Testing

@testable import AudioSessionDaemon

/// Jack controls as ports, from control lists recorded on real machines (`amixer -c 0 contents`), and what the
/// policy makes of a jack changing.
@Suite struct JackPortsTests {
    static func recorded(_ name: String) throws -> [JackControl] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../AlsaBackendTests/Fixtures/\(name).amixer").standardized.path
        return try RecordedControlList.parse(String(contentsOfFile: path, encoding: .utf8), source: path)
    }

    @Test func aLaptopsPluggedJacksAreItsPortsAndPhantomJacksAreNot() throws {
        let laptop = try Self.recorded("intel-hda-laptop")
        #expect(JackPorts.ports(of: laptop, settings: .standard) == [.headphones])
        let headset = try Self.recorded("laptop-headset-plugged")
        #expect(JackPorts.ports(of: headset, settings: .standard) == [.headphones, .headsetMic, .lineOut])
        #expect(JackPorts.ports(of: try Self.recorded("usb-headset"), settings: .standard) == [])
    }

    @Test func pullingOutReportsThePortGoneBeforeAnyArrives() {
        let facts = JackPorts.facts(from: [.headphones, .headsetMic], to: [.lineOut])
        #expect(facts == [.portGone(.headphones), .portGone(.headsetMic), .portAvailable(.lineOut)])
        #expect(JackPorts.facts(from: [.headphones], to: [.headphones]) == [])
    }

    @Test func aConfiguredRuleNamesTheJacksPort() throws {
        let configuration = try DaemonConfigurationLoader.parse(
            yaml: "alsa:\n  jacks:\n    card: hw:1\n    ports:\n      - { jack: \"Line Out*\", port: carAudio }\n",
            file: "car.yaml"
        )
        #expect(configuration.alsa.jackCard == "hw:1")
        #expect(configuration.alsa.mixer == AlsaSettings.standard.mixer)
        let jacks = try Self.recorded("laptop-headset-plugged")
        #expect(JackPorts.ports(of: jacks, settings: configuration.alsa) == [.carAudio])
    }

    @Test func aBadAlsaSectionIsAnErrorAtItsLineNamingTheField() {
        #expect {
            _ = try DaemonConfigurationLoader.parse(
                yaml: "alsa:\n  jacks:\n    ports:\n      - { jack: Headphone*, port: earbuds }\n",
                file: "bad.yaml"
            )
        } throws: { "\($0)".contains("bad.yaml:4") && "\($0)".contains("earbuds") }
        #expect {
            _ = try DaemonConfigurationLoader.parse(
                yaml: "alsa:\n  mixer: { card: default, volume: Master }\n",
                file: "bad.yaml"
            )
        } throws: { "\($0)".contains("bad.yaml:2") && "\($0)".contains("volume") }
    }

    /// Headphones pulled out of a machine with no sound server: the music playing on them is stopped (R4) and
    /// told, exactly as with a sound server's device going away.
    @Test func aJackPulledOutStopsTheMusicOnIt() throws {
        var core = DaemonCoreTests.core()
        let music = DaemonCoreTests.music
        _ = core.handle(.sound(.serverConnected))
        for fact in JackPorts.facts(
            from: [],
            to: JackPorts.ports(of: try Self.recorded("intel-hda-laptop"), settings: .standard)
        ) {
            _ = core.handle(.sound(fact))
        }
        _ = core.handle(.sound(.inventoryTaken))
        _ = core.handle(.request(music, DaemonCoreTests.request(.subscribe)))
        _ = core.handle(.request(music, DaemonCoreTests.request(.setCategory(.playback))))
        _ = core.handle(
            .request(
                music,
                DaemonCoreTests.request(.startStream(1, direction: .output))
            )
        )
        #expect(core.state(of: SessionID(1))?.currentRoute.output == .headphones)
        var effects: [DaemonEffect] = []
        for fact in JackPorts.facts(from: [.headphones], to: []) { effects += core.handle(.sound(fact)) }
        let events = DaemonCoreTests.events(effects, to: music)
        #expect(events.first?.event == .routeChange)
        #expect(events.first?.reason == .oldDeviceUnavailable)
        #expect(events.contains { $0.event == .streamVerdict && $0.verdict == "silent" })
    }
}
