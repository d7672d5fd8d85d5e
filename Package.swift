// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "audiosessiond",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AudioSessionPolicy", targets: ["AudioSessionPolicy"]),
        .library(name: "AudioSessionScenario", targets: ["AudioSessionScenario"]),
        .executable(name: "audiosessionctl", targets: ["audiosessionctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The pure policy engine: no I/O, no clock, no threads, no Foundation.
        .target(name: "AudioSessionPolicy"),
        // Policy configuration and scenario files (YAML), and the scenario replayer.
        .target(
            name: "AudioSessionScenario",
            dependencies: ["AudioSessionPolicy", .product(name: "Yams", package: "Yams")]
        ),
        // The subcommands of audiosessionctl, callable from tests.
        .target(
            name: "AudioSessionCLI",
            dependencies: [
                "AudioSessionPolicy", "AudioSessionScenario",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "audiosessionctl", dependencies: ["AudioSessionCLI"]),
        // What tests and benchmarks share: a seeded random generator.
        .target(name: "AudioSessionTestSupport"),
        // Prints engine throughput and state size; run with `make bench` (release mode).
        .executableTarget(name: "PolicyBenchmark", dependencies: ["AudioSessionPolicy", "AudioSessionTestSupport"]),
        .testTarget(name: "AudioSessionPolicyTests", dependencies: ["AudioSessionPolicy", "AudioSessionTestSupport"]),
        .testTarget(
            name: "AudioSessionScenarioTests",
            dependencies: ["AudioSessionScenario", "AudioSessionCLI", "AudioSessionPolicy"],
            exclude: ["../Scenarios"]
        ),
    ]
)
