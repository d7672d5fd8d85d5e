import AudioSessionPolicy
import AudioSessionTestSupport

#if canImport(Glibc)
    import Glibc
#endif

// Engine throughput and state size. Figures are printed, never asserted: these machines are noisy, so each
// figure is the median of several trials, and the per-event cost at each size is compared with 10 sessions.

let trials = 7
let eventsPerTrial = 400_000
let sizes = [10, 100, 1_000, 10_000]

print("audiosessiond policy engine benchmark (release build, \(trials) trials, median)")
let bytes = bytesPerSession(count: 10_000)
print("state per session: \(bytes) bytes (resident memory growth over 10,000 sessions, each with one output stream)")
print("")
print("Workload A: 8 busy sessions cycle activate/play/pause/deactivate; every other session is idle.")
print("Workload B: each event touches one random session (all mixable), so most sessions are active.")
print("")
print("sessions | A events/s | A ns/event | A vs 10 | B events/s | B ns/event | B vs 10")
var baseline: (a: Double, b: Double)?
for size in sizes {
    let a = median((0..<trials).map { _ in nanosecondsPerEvent(sessions: size, busy: min(8, size)) })
    let b = median((0..<trials).map { _ in nanosecondsPerEvent(sessions: size, busy: size) })
    baseline = baseline ?? (a, b)
    print(
        [
            pad("\(size)", 8), pad(rate(a), 10), pad(format(a), 10), pad(ratio(a, baseline!.a), 7),
            pad(rate(b), 10), pad(format(b), 10), pad(ratio(b, baseline!.b), 7),
        ].joined(separator: " | ")
    )
}

/// Nanoseconds per event over `eventsPerTrial` events that each touch one of `busy` sessions, with
/// `sessions - busy` idle ones beside them.
func nanosecondsPerEvent(sessions count: Int, busy: Int) -> Double {
    var engine = makeEngine(sessions: count)
    var random = SeededRandom(seed: 42)
    var phase = [Int](repeating: 0, count: busy)
    let clock = ContinuousClock()
    var sink = 0
    let elapsed = clock.measure {
        for _ in 0..<eventsPerTrial {
            let index = Int(random.next() % UInt64(busy))
            let session = SessionID(index)
            let stream = StreamID(index)
            let event: PolicyEvent
            switch phase[index] {
            case 0: event = .activate(session)
            case 1: event = .streamStarted(stream, session: session, direction: .output)
            case 2: event = .streamPaused(stream)
            default: event = .deactivate(session)
            }
            phase[index] = (phase[index] + 1) % 4
            sink &+= engine.handle(event).actions.count
        }
    }
    if sink == -1 { print(sink) }
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return nanoseconds / Double(eventsPerTrial)
}

func makeEngine(sessions count: Int) -> PolicyEngine {
    var engine = PolicyEngine(outputs: [.speaker, .headphones])
    for index in 0..<count {
        let declaration =
            index % 10 == 9
            ? SessionDeclaration(appName: "app\(index)", category: .ambient)
            : SessionDeclaration(appName: "app\(index)", category: .playback, options: [.mixWithOthers])
        _ = engine.handle(.sessionCreated(SessionID(index), declaration))
    }
    return engine
}

/// Bytes per session: the growth of the resident set while `count` sessions (each with a running output
/// stream) are created, read from /proc/self/statm. Pages the allocator had already mapped are not counted,
/// so it runs before the throughput trials, and over enough sessions that page rounding averages out.
func bytesPerSession(count: Int) -> Int {
    let before = residentBytes()
    var engine = makeEngine(sessions: count)
    for index in 0..<count {
        _ = engine.handle(.streamStarted(StreamID(index), session: SessionID(index), direction: .output))
    }
    let after = residentBytes()
    return withExtendedLifetime(engine) { (after - before) / count }
}

func residentBytes() -> Int {
    #if canImport(Glibc)
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return 0 }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
        return 0
    #endif
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func rate(_ nanoseconds: Double) -> String { "\(Int(1e9 / nanoseconds))" }
func format(_ value: Double) -> String { String(Int(value.rounded())) }
func ratio(_ value: Double, _ base: Double) -> String {
    let hundredths = Int((value / base * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)x"
}
func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
