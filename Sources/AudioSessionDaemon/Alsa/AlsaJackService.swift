import AlsaBackend
import AudioSessionConfiguration
import AudioSessionDaemonCore
import AudioSessionPolicy
import FoundationEssentials
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where jack states come from: a card's controls (`AlsaCardControls`), or, in tests, lists recorded on machines
/// that have the jacks this one lacks.
protocol JackSource: Sendable {
    func jacks() throws -> [JackControl]
    /// Waits for a control event; false when none came within the time.
    func waitForEvent(timeoutMilliseconds: Int) throws -> Bool
}

extension AlsaCardControls: JackSource {}

/// The jack controls of an ALSA card (no sound server): headphones plugged in or pulled out become ports
/// arriving and going (R2, R4). The first reading is the inventory, as with a sound server: the ports there at
/// start are not taken for the user plugging them in.
final class AlsaJackService: Service, AlsaThreadService {
    private let card: String
    private let settings: AlsaSettings
    private let inputs: AsyncStream<DaemonInput>.Continuation
    private let logger: Logger
    let stopping = Atomic<Bool>(false)
    private let open: @Sendable () throws -> any JackSource
    static let pollMilliseconds = 50

    init(
        card: String,
        settings: AlsaSettings,
        inputs: AsyncStream<DaemonInput>.Continuation,
        logger: Logger,
        open: (@Sendable () throws -> any JackSource)? = nil
    ) {
        self.card = card
        self.settings = settings
        self.inputs = inputs
        self.logger = logger
        self.open = open ?? { try AlsaCardControls(card: card) }
    }

    func run() async {
        await runOnThread(named: "audiosessiond-jacks") { [self] in serve() }
    }

    private func serve() {
        var reported = false
        var inventoried = false
        var ports: [AudioSessionPolicy.Port] = []
        while !stopping.load(ordering: .relaxed) {
            do {
                let controls = try open()
                let jacks = try controls.jacks()
                logger.info(
                    "jacks of \(card): \(jacks.isEmpty ? "none" : jacks.map { "\($0.name) \($0.isPlugged ? "plugged" : "empty")" }.joined(separator: ", "))"
                )
                ports = report(jacks, after: ports, inventory: true)
                inventoried = true
                reported = false
                while !stopping.load(ordering: .relaxed) {
                    guard try controls.waitForEvent(timeoutMilliseconds: Self.pollMilliseconds) else { continue }
                    ports = report(try controls.jacks(), after: ports, inventory: false)
                }
                return
            } catch {
                if !reported {
                    logger.warning(
                        "jacks of \(card): \(error); ports come from connectPort only until the card can be read (retrying)"
                    )
                    reported = true
                }
                // No card to take an inventory of: the ports there are all there will be for now, and the output
                // the user selected before is restored among them (the daemon waited for this inventory).
                if !inventoried {
                    inputs.yield(.sound(.inventoryTaken))
                    inventoried = true
                }
                // The card went away: its jacks' ports went with it.
                for fact in JackPorts.facts(from: ports, to: []) { inputs.yield(.sound(fact)) }
                ports = []
                pauseBeforeRetrying()
            }
        }
    }

    private func report(_ jacks: [JackControl], after old: [AudioSessionPolicy.Port], inventory: Bool)
        -> [AudioSessionPolicy.Port]
    {
        let new = JackPorts.ports(of: jacks, settings: settings)
        let facts = JackPorts.facts(from: old, to: new)
        if inventory { inputs.yield(.sound(.serverConnected)) }
        for fact in facts { inputs.yield(.sound(fact)) }
        if inventory { inputs.yield(.sound(.inventoryTaken)) }
        return new
    }
}
