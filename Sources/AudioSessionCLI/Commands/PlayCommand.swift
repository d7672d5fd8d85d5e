import AlsaBackend
import ArgumentParser
import AudioSessionPlayback
import Foundation

/// `audiosessionctl play FILE --category C [--controls media|none]`: plays a file to ALSA as an aware app.
struct PlayCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a WAV or raw PCM file to an ALSA device inside an audio session, obeying it.",
        discussion: """
            Declares the session, plays, and shows its position and state until the file ends (or SIGINT). It \
            pauses when interrupted and when its output goes away, resumes after an interruption when the daemon \
            says it may (always with --controls none), and applies ducking to its own samples when the daemon \
            has no sound server. On a terminal, Enter pauses and plays (the play button a paused player waits \
            for after its headphones went away). Exit status: 0 at the end of the file, 1 on an error, 130 when stopped by a \
            signal.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionArguments

    @Option(
        name: .customLong("raw-format"),
        help: "Read the file as raw PCM: FORMAT:CHANNELS:RATE, e.g. s16le:2:48000."
    )
    var rawFormat: String?

    @Argument(help: "The file to play.")
    var file: String

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let format = try rawFormat.map { try PCMFormat(parsing: $0) }
        // The file and the device first: a bad one is reported before the daemon is asked anything.
        let audioSession = session.session(on: connection.socket)
        defer { audioSession.close() }
        let player = try openingDevice(session.device) {
            try AudioPlayer(
                contentsOf: file,
                rawFormat: format,
                device: session.device,
                session: audioSession,
                controls: session.controls
            )
        }
        defer { player.close() }
        try session.declare(audioSession)
        print(
            "playing \(file) (\(player.format), \(TransportProgress.clock(player.duration))) to \(session.device)",
            to: &output
        )
        // Before anything can fail on standard error: the two stay in order on a terminal.
        fflush(nil)
        let events = player.events
        try player.play()
        let progress = TransportProgress(
            position: { (player.currentTime, player.state, player.gain, player.underruns) },
            total: player.duration,
            glitchWord: "underruns",
            playPause: {
                if player.state == .playing { player.pause() } else { try? player.play() }
            }
        )
        let end = progress.follow(events, output: &output)
        // Stopped by a signal too: the device goes first, then the session, letting those it interrupted resume.
        player.close()
        try? audioSession.setActive(false, options: .notifyOthersOnDeactivation)
        return end.interrupted ? 130 : 0
    }
}
