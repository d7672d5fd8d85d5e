import Foundation
import PulseBackend
import Synchronization

/// The least an external policy client must do, as a floor for the daemon: on each new sink input, one query
/// for its role; when a phone stream appears, mute every music stream, and unmute them when it goes. No engine,
/// no sessions, no logging, no control socket, and its own writes' change events are not read back.
/// `pipelined` issues the N mutes at once; otherwise each is awaited before the next, as the daemon does.
/// It runs in a process of its own (`DaemonBenchmark --reactor SERVER`), as the daemon does, so that it shares
/// nothing with the benchmark's observers and streams; SIGUSR1 makes it pipeline, SIGUSR2 await each write.
final class Reactor: @unchecked Sendable {
    let connection: PulseConnection
    private var reader: Task<Void, Never>?

    var pipelined: Bool { pipelineSignal.load(ordering: .relaxed) }

    init(server: String) async throws {
        connection = PulseConnection(server: server, applicationName: "benchmark-reactor")
        try await connection.connect()
        let events = connection.events
        reader = Task.detached { [unowned self] in
            var roles: [UInt32: String] = [:]
            for await event in events {
                guard case .changed(.sinkInput, let change, let index) = event else { continue }
                switch change {
                case .new:
                    guard let input = try? await connection.sinkInput(index) else { continue }
                    let role = input.properties["media.role"] ?? ""
                    roles[index] = role
                    if role == "phone" { await setMute(true, roles.filter { $0.value == "music" }.map(\.key)) }
                case .remove:
                    if roles.removeValue(forKey: index) == "phone" {
                        await setMute(false, roles.filter { $0.value == "music" }.map(\.key))
                    }
                case .change:
                    continue
                }
            }
        }
    }

    private func setMute(_ muted: Bool, _ indices: [UInt32]) async {
        let connection = connection
        if pipelined {
            await withTaskGroup(of: Void.self) { group in
                for index in indices { group.addTask { try? await connection.setSinkInputMute(index, muted) } }
            }
        } else {
            for index in indices { try? await connection.setSinkInputMute(index, muted) }
        }
    }

    func close() {
        reader?.cancel()
        connection.close()
    }
}

/// Set from the signal handlers: SIGUSR1 pipelines the floor client's writes, SIGUSR2 awaits each.
let pipelineSignal = Atomic<Bool>(false)

/// `DaemonBenchmark --reactor SERVER`: the floor client as a process of its own, until SIGTERM.
func reactorMain(server: String) async -> Never {
    signal(SIGUSR1) { _ in pipelineSignal.store(true, ordering: .relaxed) }
    signal(SIGUSR2) { _ in pipelineSignal.store(false, ordering: .relaxed) }
    do {
        let parent = getppid()
        let reactor = try await Reactor(server: server)
        // Ends with the benchmark, however that ends. A plain thread's sleep watches for that, not a task's: a
        // task's timer wakes libdispatch's threads, about 0.4 ms of CPU a second on the benchmark's machine, which
        // the floor's CPU per call would count.
        await withCheckedContinuation { (parentGone: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                while getppid() == parent { usleep(500_000) }
                parentGone.resume()
            }
        }
        reactor.close()
        exit(0)
    } catch {
        print("reactor: \(error)")
        exit(1)
    }
}
