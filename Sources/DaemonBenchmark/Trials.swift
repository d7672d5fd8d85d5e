import Foundation
import PulseBackend

/// Benchmarks 1 and 3 (and the module's side of 2): `music` plays; a `media.role=phone` stream appears. The time
/// from the phone stream's `new` event to the observer seeing the last music stream silenced, in milliseconds
/// (nil if that did not happen within 5 s). Afterwards the phone stream ends and every music stream is heard
/// again before this returns.
func phoneStreamTrial(_ rig: Rig, music: [UInt32]) async throws -> Double? {
    try await phoneStreamTrialTimes(rig, music: music)?.fromNew
}

/// The same, with both times: from the phone stream's `new` event, and from the phone app's call to open its
/// stream (connecting included), to the last music stream seen silenced.
func phoneStreamTrialTimes(_ rig: Rig, music: [UInt32]) async throws -> (fromNew: Double, fromOpen: Double)? {
    let opening = ContinuousClock.now
    let phone = try await PulsePlaybackStream.open(
        server: rig.server.pulseServer, name: "phone", properties: ["media.role": "phone"])
    let appeared = await rig.observer.appearance(of: phone.sinkInputIndex)
    let muted = await rig.observer.allShow(silenced: true, music, after: opening)
    let closing = ContinuousClock.now
    phone.close()
    // The daemon gives the music back after the call's grace period (U2, 500 ms); module-role-cork at once.
    guard await rig.observer.allShow(silenced: false, music, after: closing) != nil else {
        throw BenchError("\(rig.name): the music stayed silenced after the call ended")
    }
    guard let appeared, let muted else { return nil }
    return (milliseconds(muted - appeared), milliseconds(muted - opening))
}

/// Benchmark 2's daemon side: music streams owned by client sessions; the phone client sends `activate`. The
/// time from just before the request is written to the observer seeing the last music stream silenced.
/// Afterwards the phone deactivates (notifyOthers), each music client activates again, and every music stream
/// is heard again before this returns.
func activateTrial(_ rig: Rig, phone: ControlClient, musicClients: [ControlClient], music: [UInt32]) async throws -> Double? {
    let start = ContinuousClock.now
    let request = try phone.send(#""op":"activate""#)
    let muted = await rig.observer.allShow(silenced: true, music, after: start)
    try phone.reply(to: request)
    let reactivating = ContinuousClock.now
    try phone.call(#""op":"deactivate","notifyOthers":true"#)
    let requests = try musicClients.map { try $0.send(#""op":"activate""#) }
    for (client, request) in zip(musicClients, requests) { try client.reply(to: request) }
    guard await rig.observer.allShow(silenced: false, music, after: reactivating) != nil else {
        throw BenchError("\(rig.name): the music stayed silenced after the phone deactivated")
    }
    guard let muted else { return nil }
    return milliseconds(muted - start)
}

/// Runs the `configurations` in turn, `count` rounds, so that all see the same machine load over time.
func alternate(_ count: Int, _ label: String, _ configurations: [() async throws -> Double?]) async throws -> [Timings] {
    var timings = [Timings](repeating: Timings(), count: configurations.count)
    let begun = ContinuousClock.now
    for _ in 0..<count {
        for (i, trial) in configurations.enumerated() { timings[i].add(try await trial()) }
    }
    progress("\(label): \(count) rounds of \(configurations.count) in \(ms(milliseconds(.now - begun)))")
    return timings
}
