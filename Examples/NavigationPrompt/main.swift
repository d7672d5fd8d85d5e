// A navigation prompt: speaks over whatever plays by ducking it (duckOthers), then lets it come back to full
// volume as soon as the prompt is over.
import AudioSessionClient
import AudioSessionPlayback
import ExampleSupport

await Example.main(
    usage: "A navigation prompt: ducks whatever plays while it speaks, then lets it back to full volume."
) {
    let session = AudioSession(appName: "navigation")
    try session.setCategory(.playback, mode: .voicePrompt, options: [.duckOthers])

    let prompt = try Example.soundFile(named: "prompt", seconds: 2, frequency: 660)
    let player = try AudioPlayer(contentsOf: prompt, device: Example.device, session: session)
    let narration = Example.narrate(player.events, as: "navigation")

    // Activation ducks the others; activate just before speaking and deactivate right after, so that the music is
    // down only while the prompt talks.
    try session.setActive(true)
    Example.say("navigation", "in 300 metres, turn left (others playing: \(session.isOtherAudioPlaying))")
    try player.play()
    _ = await Example.wait { player.state == .finished }
    player.close()
    try session.setActive(false, options: .notifyOthersOnDeactivation)
    Example.say("navigation", "done; the others are back to full volume")
    narration.cancel()
    Example.removeGeneratedFiles()
}
