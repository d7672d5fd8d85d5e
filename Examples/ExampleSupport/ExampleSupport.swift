import AlsaBackend
import AudioSessionPlayback
import Foundation
import Locking
import Synchronization

/// What the three examples share: a sound to play when none is given, and printing what their player does.
public enum Example {
    /// The file named on the command line, or a tone written for the example (so that it runs anywhere).
    public static func soundFile(named name: String, seconds: Double, frequency: Double) throws -> String {
        if CommandLine.arguments.count > 1 { return CommandLine.arguments[1] }
        let format = PCMFormat(sampleFormat: .s16le, channels: 1, rate: 44_100)
        let path = FileManager.default.temporaryDirectory.path + "/\(name)-\(getpid()).wav"
        let writer = try WAVWriter(path: path, format: format)
        let frames = Int(seconds * Double(format.rate))
        var samples = [UInt8]()
        samples.reserveCapacity(frames * 2)
        for frame in 0..<frames {
            let value = Int16(9000 * sin(2 * Double.pi * frequency * Double(frame) / Double(format.rate)))
            withUnsafeBytes(of: value.littleEndian) { samples.append(contentsOf: $0) }
        }
        try writer.append(samples)
        try writer.finish()
        generated.withLock { $0.append(path) }
        return path
    }

    private static let generated = Locked<[String]>([])

    /// Removes the sounds `soundFile` wrote; an example calls it as it ends.
    public static func removeGeneratedFiles() {
        for path in generated.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Runs an example's body: `--help` prints its usage; an error ends it with one line on standard error and
    /// exit status 1 (an example is a program people try by hand, not a place for a backtrace).
    public static func main(usage: String, _ body: () async throws -> Void) async {
        let name = (CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent }) ?? "example"
        if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(
                "usage: \(name) [FILE.wav]\n\(usage)\n\nWithout FILE it plays a tone it makes. AUDIOSESSIOND_SOCKET names the daemon's socket, AUDIO_DEVICE the ALSA device (default: default)."
            )
            exit(0)
        }
        do {
            try await body()
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            removeGeneratedFiles()
            exit(1)
        }
    }

    /// The ALSA device: `$AUDIO_DEVICE`, else `default`.
    public static var device: String { ProcessInfo.processInfo.environment["AUDIO_DEVICE"] ?? "default" }

    /// Prints one line, at once (the examples are watched through pipes and logs).
    public static func say(_ who: String, _ line: String) {
        print("[\(who)] \(line)")
        fflush(nil)
    }

    /// Prints what happens to a player or recorder as it happens.
    public static func narrate(_ events: AsyncStream<TransportEvent>, as who: String) -> Task<Void, Never> {
        Task {
            for await event in events {
                switch event {
                case .state(let state, let because): say(who, "\(state.rawValue): \(because)")
                case .gain(let gain): say(who, "gain \(gain) on its own samples")
                case .verdict(let update):
                    say(
                        who,
                        "the daemon says \(update.verdict.rawValue)\(update.verdict == .ducked ? " (gain \(update.gain))" : "")"
                    )
                case .failed(let why): say(who, "failed: \(why)")
                }
            }
        }
    }

    /// Waits until `done` holds or SIGINT/SIGTERM arrives (then returns false).
    public static func wait(until done: @escaping @Sendable () -> Bool) async -> Bool {
        StopSignal.catchOnce()
        while !done() {
            if StopSignal.received.load(ordering: .relaxed) { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}

/// SIGINT and SIGTERM, caught so that an example can end cleanly: deactivate its session so others resume.
enum StopSignal {
    static let received = Atomic<Bool>(false)

    static func catchOnce() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in StopSignal.received.store(true, ordering: .relaxed) }
        }
    }
}
