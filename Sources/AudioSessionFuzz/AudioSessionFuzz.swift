// The libFuzzer entry for what reads untrusted bytes: the control socket's request decoder, the configuration
// loader and the scenario loader (docs/TESTING.md, "Fuzzing"). `make fuzz` builds it with
// `-sanitize=fuzzer,address -DFUZZING` and runs it once per reader, chosen by FUZZ_TARGET. Without FUZZING (the
// normal `swift build`, which builds every target) it is a program that says how to build it. The file is not
// main.swift: the fuzz build compiles it as a library (-parse-as-library), for libFuzzer brings `main`.
import AudioSessionConfiguration
import AudioSessionProtocol
import AudioSessionScenario

/// The readers, by the name FUZZ_TARGET gives.
enum FuzzTarget: String, CaseIterable {
    case request, configuration, scenario

    /// Any bytes may be read; only a crash (a trap, a sanitizer report, a hang) is a finding. A thrown error is
    /// the reader doing its job.
    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .request:
            guard let request = try? Request.decode(line: bytes) else { return }
            // What decodes must survive being sent: the client encodes requests with LineCoding, the daemon
            // decodes them again.
            let again = try? Request.decode(line: Array(LineCoding.encode(request).utf8))
            guard again == request else {
                fatalError("request did not survive encoding: \(request) became \(String(describing: again))")
            }
        case .configuration:
            _ = try? DaemonConfigurationLoader.parse(yaml: String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
        case .scenario:
            // A scenario that loads is replayed: the loader promises that what it accepts makes sense to the engine.
            guard let scenario = try? ScenarioLoader.parse(yaml: String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
            else { return }
            _ = ScenarioRunner.run(scenario)
        }
    }
}

#if FUZZING
import Glibc

/// FUZZ_TARGET, read once: libFuzzer calls the entry millions of times.
private let selectedTarget: FuzzTarget = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("AudioSessionFuzz: FUZZ_TARGET must be one of \(names); it is \"\(name)\"")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver, which its own `main` calls.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable with `main` defined as this module's `AudioSessionFuzz_main` (so that tests can
/// link the module), which shadows libFuzzer's `main`; this one starts libFuzzer's driver as that would.
@_cdecl("AudioSessionFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
}
#else
/// Built without FUZZING (the normal `swift build`, which builds every target): says how to build it.
@main enum AudioSessionFuzz {
    static func main() {
        print("""
            AudioSessionFuzz is a libFuzzer target; build and run it with `make fuzz` (docs/TESTING.md). Readers: \
            \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")).
            """)
    }
}
#endif
