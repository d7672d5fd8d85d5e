import AlsaBackend
import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionConfiguration
import Foundation
import Logging
import Locking
import Testing

@testable import AudioSessionDaemon

/// The jack service's thread, fed control lists recorded on real machines (this one has no sound card): what
/// it reports to the policy as a headset is plugged in and pulled out again.
@Suite(.timeLimit(.minutes(4))) struct AlsaJackServiceTests {
    /// Recorded lists, one per control event: the first is what the card shows when the daemon starts.
    final class RecordedCard: JackSource {
        private let readings: Locked<[[JackControl]]>
        init(_ readings: [[JackControl]]) { self.readings = Locked(readings) }

        func jacks() throws -> [JackControl] {
            readings.withLock { $0.first ?? [] }
        }

        func waitForEvent(timeoutMilliseconds: Int) throws -> Bool {
            let more = readings.withLock { readings in
                guard readings.count > 1 else { return false }
                readings.removeFirst()
                return true
            }
            if !more { Thread.sleep(forTimeInterval: Double(timeoutMilliseconds) / 1000) }
            return more
        }
    }

    @Test func aHeadsetPluggedInAndPulledOutArrivesAndGoesAfterTheInventory() async throws {
        let laptop = try JackPortsTests.recorded("intel-hda-laptop")
        let headset = try JackPortsTests.recorded("laptop-headset-plugged")
        let card = RecordedCard([laptop, headset, laptop])
        let (inputs, feed) = AsyncStream<DaemonInput>.makeStream()
        let service = AlsaJackService(
            card: "hw:0",
            settings: .standard,
            inputs: feed,
            logger: Logger(label: "test"),
            open: { card }
        )
        let running = Task { await service.run() }
        defer { running.cancel() }
        var facts: [SoundFact] = []
        for await input in inputs {
            if case .sound(let fact) = input { facts.append(fact) }
            if facts.count == 7 { break }
        }
        // The headphones jack stays plugged throughout: found at start, never reported again. The ports of the
        // headset go first when it is pulled out.
        #expect(
            facts == [
                .serverConnected, .portAvailable(.headphones), .inventoryTaken,
                .portAvailable(.headsetMic), .portAvailable(.lineOut),
                .portGone(.headsetMic), .portGone(.lineOut),
            ]
        )
    }

    /// No card to read: the inventory is over at once (so the output the user selected is restored among the
    /// ports there are), and nothing else is reported while it stays away.
    @Test func withNoCardTheInventoryIsOverAtOnce() async throws {
        let (inputs, feed) = AsyncStream<DaemonInput>.makeStream()
        let service = AlsaJackService(
            card: "hw:7",
            settings: .standard,
            inputs: feed,
            logger: Logger(label: "test"),
            open: { throw AlsaError(code: .deviceNotFound, message: "no card hw:7", device: "hw:7") }
        )
        let running = Task { await service.run() }
        defer { running.cancel() }
        var first: SoundFact?
        for await input in inputs {
            if case .sound(let fact) = input {
                first = fact
                break
            }
        }
        #expect(first == .inventoryTaken)
    }
}
