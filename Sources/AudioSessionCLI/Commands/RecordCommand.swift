import AlsaBackend
import ArgumentParser
import AudioSessionPlayback
import Foundation

/// `audiosessionctl record FILE --category C [--duration S]`: records from ALSA into a WAV file as an aware app.
struct RecordCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record from an ALSA device into a WAV file inside an audio session, obeying it.",
        discussion: """
            Declares the session (record or playAndRecord), records, and shows the time recorded and the state \
            until --duration is reached or SIGINT. It pauses when interrupted and when its input goes away, and \
            records silence while the daemon (with no sound server) says the input is muted.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var session: SessionArguments

    @Option(help: "The format to record: FORMAT:CHANNELS:RATE.")
    var format: String = "s16le:1:48000"

    @Option(help: "Stop after this many seconds (default: until SIGINT).")
    var duration: Double?

    @Argument(help: "The WAV file to write.")
    var file: String

    func validate() throws {
        guard session.category == .record || session.category == .playAndRecord else {
            throw ValidationError(
                "--category \(session.category.rawValue) has no input; record needs record or playAndRecord"
            )
        }
        if let duration, duration <= 0 { throw ValidationError("--duration must be more than 0 seconds") }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        let pcmFormat = try PCMFormat(parsing: format)
        // The file and the device first: a bad one is reported before the daemon is asked anything.
        let audioSession = session.session(on: connection.socket)
        defer { audioSession.close() }
        let recorder = try openingDevice(session.device) {
            try AudioRecorder(
                path: file,
                format: pcmFormat,
                device: session.device,
                session: audioSession,
                controls: session.controls,
                maximumDuration: duration
            )
        }
        // Whatever fails from here on, the file is finished (its sizes written) and the device let go.
        defer { recorder.close() }
        try session.declare(audioSession)
        print("recording \(pcmFormat) from \(session.device) to \(file)", to: &output)
        // Before anything can fail on standard error: the two stay in order on a terminal.
        fflush(nil)
        let events = recorder.events
        try recorder.record()
        let progress = TransportProgress(
            position: { (recorder.currentTime, recorder.state, 1, recorder.overruns) },
            total: duration,
            glitchWord: "overruns",
            runningWord: "recording"
        )
        let end = progress.follow(events, output: &output)
        recorder.close()
        try? audioSession.setActive(false, options: .notifyOthersOnDeactivation)
        print("recorded \(TransportProgress.clock(recorder.currentTime)) to \(file)", to: &output)
        return end.interrupted ? 130 : 0
    }
}
