// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "audiosessiond",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AudioSessionPolicy", targets: ["AudioSessionPolicy"]),
        .library(name: "AudioSessionConfiguration", targets: ["AudioSessionConfiguration"]),
        .library(name: "AudioSessionScenario", targets: ["AudioSessionScenario"]),
        .library(name: "AudioSessionProtocol", targets: ["AudioSessionProtocol"]),
        .library(name: "AudioSessionClient", targets: ["AudioSessionClient"]),
        .library(name: "AudioSessionPlayback", targets: ["AudioSessionPlayback"]),
        .library(name: "AlsaBackend", targets: ["AlsaBackend"]),
        .executable(name: "audiosessionctl", targets: ["audiosessionctl"]),
        .executable(name: "audiosessiond", targets: ["audiosessiond"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Already in the build through swift-nio: its Deque, a queue that holds no memory while empty.
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    ],
    targets: [
        // The pure policy engine: no I/O, no clock, no threads, no Foundation.
        .target(name: "AudioSessionPolicy"),
        // The project's one lock (a pthread mutex ThreadSanitizer understands; Sources/Locking/Locked.swift says why).
        .target(name: "Locking"),
        // libyaml, as the system has it.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // One thin Swift layer over libyaml: one document composed into nodes with their lines and columns, plain
        // scalars resolved as YAML 1.1 does, bounded against hostile files. No Foundation (docs/ARCHITECTURE.md).
        .target(name: "YAMLBackend", dependencies: ["CYAML"]),
        // The policy and daemon configuration (YAML), read strictly with every issue at its line and column; the
        // strict YAML reading the scenario files share.
        .target(name: "AudioSessionConfiguration", dependencies: ["AudioSessionPolicy", "YAMLBackend"]),
        // Scenario files (YAML), their replayer against the engine, and the timeline of a replay.
        .target(name: "AudioSessionScenario", dependencies: ["AudioSessionPolicy", "AudioSessionConfiguration", "YAMLBackend"]),
        // The messages of the control socket (newline-delimited JSON), shared by the daemon and its clients.
        .target(name: "AudioSessionProtocol", dependencies: ["AudioSessionPolicy"]),
        // The library apps use to declare and activate their audio session (iOS's AVAudioSession, on a socket).
        .target(name: "AudioSessionClient", dependencies: ["Locking", "AudioSessionPolicy", "AudioSessionProtocol"]),
        // How a player obeys its session, and the ALSA player and recorder that do so.
        .target(name: "AudioSessionPlayback", dependencies: ["Locking", "AudioSessionClient", "AudioSessionPolicy", "AlsaBackend"]),
        // libpulse, as the system has it.
        .systemLibrary(
            name: "CPulse",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // One thin Swift layer over libpulse: a connection on one threaded mainloop, typed errors.
        // libpulse's wake-ups of its mainloop from the mainloop's own thread left out (wakeup.c); the daemon's
        // executable exports the function so that libpulse's calls reach it.
        .target(name: "CPulseLoop", dependencies: ["CPulse"]),
        .target(name: "PulseBackend", dependencies: ["Locking", "CPulse", "CPulseLoop"]),
        // libsystemd's sd-bus, as the system has it.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // One thin Swift layer over sd-bus: a connection on a thread of its own, D-Bus values, typed errors.
        .target(name: "DBusBackend", dependencies: ["Locking", "CSystemd"]),
        // libasound (ALSA), as the system has it.
        .systemLibrary(
            name: "CAlsa",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // The one piece of ALSA that Swift cannot call: its error handler is a variadic C function.
        .target(name: "CAlsaShim", dependencies: ["CAlsa"]),
        // One thin Swift layer over libasound: PCM playback and capture, mixer, jack controls, WAV files, gain.
        .target(name: "AlsaBackend", dependencies: ["Locking", "CAlsa", "CAlsaShim"]),
        // The loaded objects' read-only segments (glibc's dl_iterate_phdr), for the daemon's start-up pages.
        .target(name: "CLoadedObjects"),
        // The event log's format: the records the daemon appends to `events.jsonl`, their reading, and their export
        // to a scenario (`audiosessionctl journal export`).
        .target(name: "AudioSessionEventLog", dependencies: ["AudioSessionPolicy"]),
        // The daemon's pure core: sessions, stream bookkeeping, the stream machine, journal entries as values; no I/O.
        .target(
            name: "AudioSessionDaemonCore",
            dependencies: [
                "AudioSessionPolicy", "AudioSessionConfiguration", "AudioSessionEventLog", "AudioSessionProtocol",
                // PulseVolume and PulseStreamRestoreEntry, as values (docs/ARCHITECTURE.md says why).
                "PulseBackend",
            ]
        ),
        // The daemon: owns the engine, serves the control socket, enforces verdicts on PulseAudio streams.
        .target(
            name: "AudioSessionDaemon",
            dependencies: [
                "Locking", "AudioSessionDaemonCore", "AudioSessionPolicy", "AudioSessionConfiguration", "AudioSessionEventLog",
                "AudioSessionProtocol",
                "PulseBackend", "AlsaBackend", "DBusBackend", "CLoadedObjects",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "audiosessiond",
            dependencies: [
                "AudioSessionDaemon", "AudioSessionConfiguration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["symbol-order.txt", "link"],
            // The release daemon carries its Swift runtime (nothing of Swift's is needed where it is installed),
            // linked by lld with packed relative relocations and no symbol of its own exported: the loader reads 11 KB
            // of relocations instead of 1.4 MB, and a symbol table of 25 KB instead of 1.5 MB. About 3.3 MB less
            // resident at idle (docs/BENCHMARKS.md, "Last run on this machine"). Release only: ThreadSanitizer's
            // runtime (`make tsan`, a debug build) aborts in a daemon linked so. The functions a started daemon runs are
            // laid out first, start-up's after them (symbol-order.txt, written by scripts/symbol-order.sh): the
            // kernel maps 64 KB around each page of code touched, and the code the daemon runs was spread over its
            // 14 MB of code; start-up's pages are given back once it has started (StartupCode), so only the first
            // part stays resident (docs/BENCHMARKS.md, "The daemon's code order"). The C++ runtime the Swift runtime needs is
            // linked in too (link/libstdc++.so, a linker script): loading libstdc++.so left 1 MB resident, its
            // parts in the binary about half as much.
            // The static FoundationEssentials does not name two archives it needs (its collections and C shims).
            linkerSettings: [
                // Every configuration: libpulse's calls of pa_mainloop_wakeup reach the daemon's (CPulseLoop)
                // only when the executable exports it.
                .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=pa_mainloop_wakeup"]),
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld",
                        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-Xlinker", "--no-export-dynamic",
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/audiosessiond/symbol-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                        "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims",
                        "-L", "\(Context.packageDirectory)/Sources/audiosessiond/link",
                    ],
                    .when(configuration: .release)
                )
            ]
        ),
        // The subcommands of audiosessionctl, callable from tests.
        .target(
            name: "AudioSessionCLI",
            dependencies: [
                "Locking", "AudioSessionPolicy", "AudioSessionConfiguration", "AudioSessionScenario", "AudioSessionProtocol",
                "PulseBackend",
                // `play` and `record`: the client library's ALSA player and recorder.
                "AudioSessionClient", "AudioSessionPlayback", "AlsaBackend",
                // `journal export` reads the daemon's event log.
                "AudioSessionEventLog",
                // `replay --live`: a scenario's players are pressed Play and Pause over MPRIS.
                "DBusBackend",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "audiosessionctl", dependencies: ["AudioSessionCLI"]),
        // The examples (Examples/): a podcast player, a navigation prompt, a VoIP call. `make examples` runs them
        // together against the embedded default.
        .target(name: "ExampleSupport", dependencies: ["Locking", "AlsaBackend", "AudioSessionPlayback"], path: "Examples/ExampleSupport"),
        .executableTarget(
            name: "podcast-player",
            dependencies: ["AudioSessionClient", "AudioSessionPlayback", "ExampleSupport"],
            path: "Examples/PodcastPlayer"
        ),
        .executableTarget(
            name: "navigation-prompt",
            dependencies: ["AudioSessionClient", "AudioSessionPlayback", "ExampleSupport"],
            path: "Examples/NavigationPrompt"
        ),
        .executableTarget(
            name: "voip-call",
            dependencies: ["AudioSessionClient", "AudioSessionPlayback", "ExampleSupport"],
            path: "Examples/VoIPCall"
        ),
        // What tests and benchmarks share: a seeded random generator, private sound servers.
        .target(name: "AudioSessionTestSupport", dependencies: ["Locking"]),
        // The daemon against PulseAudio's own modules, side by side on private servers (docs/BENCHMARKS.md).
        .executableTarget(
            name: "DaemonBenchmark",
            dependencies: ["Locking", "PulseBackend", "AudioSessionTestSupport", "AudioSessionProtocol", "DBusBackend"]
        ),
        // The libFuzzer entry for the request decoder, the configuration loader and the scenario loader; `make fuzz`
        // builds it with -sanitize=fuzzer,address -DFUZZING into .build-fuzz (docs/TESTING.md).
        .executableTarget(
            name: "AudioSessionFuzz",
            dependencies: ["AudioSessionProtocol", "AudioSessionConfiguration", "AudioSessionScenario"]
        ),
        // Prints engine throughput and state size; run with `make bench` (release mode).
        .executableTarget(name: "PolicyBenchmark", dependencies: ["AudioSessionPolicy", "AudioSessionTestSupport"]),
        .testTarget(name: "AudioSessionPolicyTests", dependencies: ["Locking", "AudioSessionPolicy", "AudioSessionTestSupport"]),
        .testTarget(
            name: "AudioSessionScenarioTests",
            dependencies: ["AudioSessionConfiguration", "AudioSessionScenario", "AudioSessionCLI", "AudioSessionPolicy"],
            exclude: ["../Scenarios"]
        ),
        .testTarget(
            name: "AudioSessionClientTests",
            dependencies: [
                // The daemon is the built `audiosessiond`, run as a process (TestDaemon says why).
                "Locking", "AudioSessionClient", "AudioSessionCLI", "AudioSessionPolicy", "AudioSessionProtocol",
                "AudioSessionTestSupport",
            ]
        ),
        .testTarget(name: "AudioSessionPlaybackTests", dependencies: ["AudioSessionPlayback"]),
        .testTarget(name: "PulseBackendTests", dependencies: ["Locking", "PulseBackend", "AudioSessionTestSupport"]),
        .testTarget(name: "YAMLBackendTests", dependencies: ["YAMLBackend"]),
        .testTarget(name: "DBusBackendTests", dependencies: ["Locking", "DBusBackend", "AudioSessionTestSupport"]),
        // Recorded `amixer contents` lists are read from the source tree, not bundled.
        .testTarget(
            name: "AlsaBackendTests",
            dependencies: ["AlsaBackend", "AudioSessionTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "AudioSessionDaemonTests",
            dependencies: [
                "Locking", "AudioSessionDaemon", "AudioSessionDaemonCore", "AudioSessionConfiguration", "AudioSessionEventLog",
                "AudioSessionScenario",
                "AudioSessionProtocol", "AudioSessionCLI", "PulseBackend", "AudioSessionTestSupport", "DBusBackend",
            ]
        ),
    ]
)
