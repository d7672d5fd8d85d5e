// A podcast player: spoken audio that pauses when a call comes in and picks up where it was when the call ends,
// is ducked under navigation prompts, and pauses (until the listener presses play) when the headphones are
// pulled out, so the episode never goes on playing into the room.
import AudioSessionClient
import AudioSessionPlayback
import ExampleSupport

await Example.main(
    usage:
        "A podcast player: spoken audio that pauses for calls and resumes after them, is ducked under navigation prompts, and pauses when the headphones go. Ctrl-C stops it."
) {
    let session = AudioSession(appName: "podcast")
    // spokenAudio: a navigation prompt that interrupts spoken audio (interruptSpokenAudioAndMixWithOthers) pauses
    // the episode rather than talking over it.
    try session.setCategory(.playback, mode: .spokenAudio)
    try session.setActive(true)

    let episode = try Example.soundFile(named: "episode", seconds: 30, frequency: 220)
    let player = try AudioPlayer(contentsOf: episode, device: Example.device, session: session, controls: .media)
    let narration = Example.narrate(player.events, as: "podcast")

    // The player obeys the session by itself; an app shows what happened to its listener.
    let routes = Task {
        for await change in session.routeChanges where change.reason == .oldDeviceUnavailable {
            Example.say(
                "podcast",
                "\(change.previousRoute.outputs.first?.portName ?? "the output") went away: paused; press play to go on"
            )
        }
    }

    Example.say("podcast", "playing \(episode) on \(session.currentRoute.outputs.first?.portName ?? "?")")
    try player.play()
    let finished = await Example.wait { player.state == .finished }
    Example.say("podcast", finished ? "the episode is over" : "stopped at \(Int(player.currentTime)) s")
    player.close()
    routes.cancel()
    narration.cancel()
    try session.setActive(false, options: .notifyOthersOnDeactivation)
    Example.removeGeneratedFiles()
}
