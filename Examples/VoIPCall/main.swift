// A VoIP call: it interrupts media (a call always wins, A6), plays the remote voice and records the
// microphone, and when it hangs up tells the interrupted apps they may resume (notifyOthersOnDeactivation).
import AudioSessionClient
import AudioSessionPlayback
import ExampleSupport
import Foundation

await Example.main(
    usage:
        "A VoIP call (run as the daemon's user or root): interrupts media, plays the remote voice and records the microphone for 3 s, then lets the interrupted apps resume."
) {
    // A call session needs the daemon's own user (or root): only telephony and VoIP apps the system trusts.
    let session = AudioSession(appName: "voip", isCall: true)
    try session.setCategory(.playAndRecord, mode: .voiceChat)

    let remoteVoice = try Example.soundFile(named: "remote-voice", seconds: 3, frequency: 440)
    let recording = FileManager.default.temporaryDirectory.path + "/voip-microphone-\(getpid()).wav"
    let speaker = try AudioPlayer(contentsOf: remoteVoice, device: Example.device, session: session)
    let microphone = try AudioRecorder(path: recording, device: Example.device, session: session, maximumDuration: 3)
    let narration = [
        Example.narrate(speaker.events, as: "voip speaker"), Example.narrate(microphone.events, as: "voip microphone"),
    ]

    try session.setActive(true)
    Example.say(
        "voip",
        "call connected on \(session.currentRoute.outputs.first?.portName ?? "?") / \(session.currentRoute.inputs.first?.portName ?? "?")"
    )
    try speaker.play()
    try microphone.record()
    _ = await Example.wait { speaker.state == .finished && microphone.state == .finished }
    speaker.close()
    microphone.close()
    Example.say(
        "voip",
        "hung up after \(String(format: "%.1f", microphone.currentTime)) s; the microphone went to \(recording)"
    )
    // Without notifyOthersOnDeactivation the interrupted apps would stay stopped (D3).
    try session.setActive(false, options: .notifyOthersOnDeactivation)
    for task in narration { task.cancel() }
    Example.removeGeneratedFiles()
}
