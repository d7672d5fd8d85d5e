import Locking
import AlsaBackend
import AudioSessionTestSupport
import Foundation
import Synchronization
import Testing

/// Everything that opens an ALSA device, one test at a time against the one private PulseAudio of
/// `SharedPulseServer`, through the ALSA `pulse` plug-in (libasound2-plugins).
@Suite(.serialized, .timeLimit(.minutes(4))) struct AlsaDeviceTests {
    let server: PrivateSoundServer
    let directory: String

    init() throws {
        server = try SharedPulseServer.server()
        directory = try makeScratchDirectory()
    }

    static let toneFormat = PCMFormat(sampleFormat: .s16le, channels: 2, rate: 44_100)

    /// Whether the server has a playback stream (sink input) from the ALSA plug-in right now.
    func sinkInputs() throws -> String {
        try server.pactl(["list", "short", "sink-inputs"])
    }

    @Test func playsAWAVFileToThePulsePlugin() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let path = directory + "/tone.wav"
            try PrivateSoundServer.writeTone(to: path, seconds: 1)
            let reader = try AudioFileReader(path: path)
            #expect(reader.format == Self.toneFormat)
            #expect(reader.frameCount == 44_100)

            let pcm = try AlsaPCM(device: "pulse", direction: .playback, format: reader.format, bufferMilliseconds: 500)
            #expect(pcm.bufferFrames > 0 && pcm.periodFrames > 0 && pcm.periodFrames <= pcm.bufferFrames)
            var sinkInputsWhilePlaying = ""
            while true {
                let frames = try reader.readFrames(max: 4_410)
                if frames.isEmpty { break }
                #expect(try pcm.write(frames) == frames.count / 4)
                if sinkInputsWhilePlaying.isEmpty && reader.position >= 22_050 {
                    sinkInputsWhilePlaying = try sinkInputs()
                }
            }
            // Some of the second is still queued: written ahead of what the server has played.
            #expect(try pcm.delayFrames > 0)
            try pcm.drain()
            #expect(
                sinkInputsWhilePlaying.contains("s16le 2ch 44100Hz"),
                "sink inputs while playing: \(sinkInputsWhilePlaying)"
            )
            pcm.close()
            #expect(try eventually { try sinkInputs().isEmpty })
        }
    }

    /// A probe finds a missing device and an unsupported format, and makes no stream on the server.
    @Test func probingADeviceMakesNoStream() async throws {
        try await onThread {
            try AlsaPCM.probe(device: "pulse", format: Self.toneFormat)
            try AlsaPCM.probe(device: "pulse", direction: .capture, format: Self.toneFormat)
            #expect(try sinkInputs().isEmpty)
            #expect(try server.pactl(["list", "short", "source-outputs"]).isEmpty)
            #expect { try AlsaPCM.probe(device: "nosuchdevice", format: Self.toneFormat) } throws: {
                ($0 as? AlsaError)?.code == .deviceNotFound && "\($0)".contains("nosuchdevice")
            }
            #expect {
                try AlsaPCM.probe(device: "null", format: PCMFormat(sampleFormat: .s16le, channels: 64, rate: 48_000))
            } throws: {
                ($0 as? AlsaError)?.code == .unsupportedFormat || ($0 as? AlsaError)?.code == .invalidArgument
            }
        }
    }

    @Test func playsARawFile() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let format = try PCMFormat(parsing: "s16le:1:48000")
            let path = directory + "/tone.raw"
            let samples = (0..<24_000).map { Int16(sin(Double($0) * 0.05) * 8_000) }
            try write(samples.flatMap { sample in withUnsafeBytes(of: sample.littleEndian) { Array($0) } }, to: path)
            let reader = try AudioFileReader(path: path, rawFormat: format)
            #expect(reader.frameCount == 24_000)
            let pcm = try AlsaPCM(device: "pulse", format: format)
            try pcm.write(try reader.readFrames(max: 12_000))
            let streams = try sinkInputs()
            try pcm.write(try reader.readFrames(max: 12_000))
            try pcm.drain()
            pcm.close()
            #expect(streams.contains("s16le 1ch 48000Hz"), "sink inputs while playing: \(streams)")
        }
    }

    /// A starved stream plays on. The `pulse` plug-in does not report the underrun to ALSA (PulseAudio keeps the
    /// stream alive and the plug-in's `handle_underrun` is off), so the count stays at 0 here; on a `hw:` device
    /// the same starvation is an `-EPIPE` that `write` recovers from and counts.
    /// On Debian 12, `/etc/alsa/conf.d/99-pulse.conf` makes `default` the `pulse` plug-in when a PulseAudio answers
    /// (at `PULSE_SERVER`) as ALSA first loads its configuration; this process sets `PULSE_SERVER` before that.
    @Test func defaultDeviceReachesPulseAudioToo() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let pcm = try AlsaPCM(
                device: "default",
                format: PCMFormat(sampleFormat: .float32le, channels: 1, rate: 22_050)
            )
            #expect(pcm.canPause)
            try pcm.write([UInt8](repeating: 0, count: 4 * 11_025))
            let streams = try sinkInputs()
            try pcm.drain()
            pcm.close()
            #expect(streams.contains("float32le 1ch 22050Hz"), "sink inputs while playing: \(streams)")
        }
    }

    @Test func starvedPlaybackCarriesOn() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let pcm = try AlsaPCM(device: "pulse", format: Self.toneFormat, bufferMilliseconds: 100)
            let silence = [UInt8](repeating: 0, count: 4_410 * 4)
            try pcm.write(silence)
            // Let the 100 ms of audio run out. The pulse plug-in hides the underrun from the application (ALSA.md),
            // so what is checked is that the stream carries on: the next write is taken whole and played out.
            Thread.sleep(forTimeInterval: 0.6)
            #expect(try pcm.write(silence) == 4_410)
            // Draining returns once the server has played the write out (a stream stuck after the gap would hang
            // here until the suite's limit). How long it took is a figure, not a check: CI machines are loaded.
            let started = ContinuousClock.now
            try pcm.drain()
            print("starved stream: the 100 ms written after the gap drained in \(ContinuousClock.now - started)")
            #expect(try pcm.delayFrames == 0, "nothing left queued after the drain")
            pcm.close()
        }
    }

    @Test func capturesFromTheDefaultSourceIntoAWAVFile() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            try server.pactl(["set-default-source", "builtInMic"])
            let path = directory + "/captured.wav"
            let writer = try WAVWriter(path: path, format: Self.toneFormat)
            let pcm = try AlsaPCM(device: "pulse", direction: .capture, format: Self.toneFormat)
            var sourceOutputs = ""
            for _ in 0..<10 {
                try writer.append(try pcm.read(frames: 2_205))
                if sourceOutputs.isEmpty { sourceOutputs = try server.pactl(["list", "short", "source-outputs"]) }
            }
            pcm.close()
            try writer.finish()
            #expect(sourceOutputs.contains("s16le 2ch 44100Hz"), "source outputs while capturing: \(sourceOutputs)")
            let reader = try AudioFileReader(path: path)
            #expect(reader.format == Self.toneFormat)
            #expect(reader.frameCount == 22_050)
        }
    }

    @Test func pauseResumeDropAndCloseAreIdempotent() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let pcm = try AlsaPCM(device: "pulse", format: Self.toneFormat, bufferMilliseconds: 200)
            let chunk = [UInt8](repeating: 0, count: 2_205 * 4)
            try pcm.write(chunk)
            try pcm.write(chunk)
            try pcm.pause()
            try pcm.pause()
            try pcm.resume()
            try pcm.resume()
            try pcm.write(chunk)
            try pcm.drop()
            try pcm.drop()
            // Ready again after drop.
            #expect(try pcm.write(chunk) == 2_205)
            pcm.close()
            pcm.close()
            let error = try #require(throws: AlsaError.self) { try pcm.write(chunk) }
            #expect(error.code == .closed)
            #expect(error.message.contains("'pulse'"))
        }
    }

    /// A playing PCM paused in place holds a write made on another thread until `resume()`: the stream is
    /// started (100 ms written), paused, and only then is a second of audio written from another thread; that
    /// write must still be waiting 2 s later (twice what it needs unpaused) and finish, whole, after `resume()`.
    /// The events come in that order whatever the machine's load: nothing races the pause.
    @Test func pauseFromAnotherThreadHoldsAWriteUntilResume() async throws {
        defer { removeDirectory(directory) }
        let pcm = try AlsaPCM(device: "pulse", format: Self.toneFormat, bufferMilliseconds: 100)
        try pcm.write([UInt8](repeating: 0, count: 4_410 * 4))
        try pcm.pause()
        let second = [UInt8](repeating: 0, count: 44_100 * 4)
        final class Finished: Sendable { let value = Atomic<Bool>(false) }
        let finished = Finished()
        let writer = Task.detached {
            defer { finished.value.store(true, ordering: .sequentiallyConsistent) }
            return try pcm.write(second)
        }
        try await Task.sleep(for: .seconds(2))
        let finishedWhilePaused = finished.value.load(ordering: .sequentiallyConsistent)
        try pcm.resume()
        let frames = try await writer.value
        #expect(!finishedWhilePaused, "the write went on while the device was paused")
        #expect(frames == 44_100)
        pcm.close()
    }

    // MARK: - Mixer and controls

    func sinkVolumePercent() throws -> Int? {
        let text = try server.pactl(["get-sink-volume", "@DEFAULT_SINK@"])
        guard let percent = text.firstIndex(of: "%") else { return nil }
        return Int(text[..<percent].split(separator: " ").last ?? "")
    }

    @Test func mixerSetsAndFollowsTheDefaultSink() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let mixer = try AlsaMixer(card: "pulse", control: "Master")
            #expect(try mixer.controlNames().contains("Master"))
            #expect(mixer.hasSwitch && mixer.hasVolume)

            try mixer.setVolume(0.5)
            #expect(try eventually { try sinkVolumePercent() == 50 })
            #expect(abs(try mixer.volume() - 0.5) < 0.01)

            try mixer.setMuted(true)
            #expect(try eventually { try server.pactl(["get-sink-mute", "@DEFAULT_SINK@"]).contains("Mute: yes") })
            #expect(try mixer.isMuted())
            try mixer.setMuted(false)
            #expect(try eventually { try server.pactl(["get-sink-mute", "@DEFAULT_SINK@"]).contains("Mute: no") })

            try server.pactl(["set-sink-volume", "@DEFAULT_SINK@", "25%"])
            #expect(
                try eventually {
                    try mixer.waitForChange(timeoutMilliseconds: 500) && abs(try mixer.volume() - 0.25) < 0.01
                }
            )
            #expect(!(try mixer.waitForChange(timeoutMilliseconds: 100)))
            mixer.close()
            mixer.close()
            #expect(throws: AlsaError.self) { try mixer.volume() }
        }
    }

    @Test func pulseCardHasNoJacksAndReportsChanges() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let controls = try AlsaCardControls(card: "pulse")
            #expect(try controls.jacks() == [])
            #expect(!(try controls.waitForEvent(timeoutMilliseconds: 100)))
            try server.pactl(["set-sink-volume", "@DEFAULT_SINK@", "60%"])
            #expect(try controls.waitForEvent(timeoutMilliseconds: 3_000))
            controls.close()
        }
    }

    // MARK: - Devices and controls that do not exist

    @Test(arguments: ["nosuchdevice", "hw:9"])
    func missingPCM(device: String) async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let error = try #require(throws: AlsaError.self) { try AlsaPCM(device: device, format: Self.toneFormat) }
            #expect(error.code == .deviceNotFound)
            #expect(error.device == device)
            #expect(error.message.contains("'\(device)'"))
            #expect(error.message.contains("No such file or directory"))
        }
    }

    @Test func missingMixerCardAndControl() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let card = try #require(throws: AlsaError.self) { try AlsaMixer(card: "hw:9") }
            #expect(card.code == .deviceNotFound)
            #expect(card.message.contains("'hw:9'"))
            let control = try #require(throws: AlsaError.self) { try AlsaMixer(card: "pulse", control: "Nonexistent") }
            #expect(control.code == .controlNotFound)
            #expect(control.message.contains("no mixer control 'Nonexistent'"))
            #expect(control.message.contains("'Master', 'Capture'"))
            let controls = try #require(throws: AlsaError.self) { try AlsaCardControls(card: "hw:9") }
            #expect(controls.code == .deviceNotFound)
            #expect(controls.message.contains("'hw:9'"))
        }
    }

    @Test func formatOutOfRange() async throws {
        try await onThread {
            defer { removeDirectory(directory) }
            let format = PCMFormat(sampleFormat: .s16le, channels: 2, rate: 5)
            let error = try #require(throws: AlsaError.self) { try AlsaPCM(device: "null", format: format) }
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.contains("5 Hz"))
            #expect(error.message.contains("'null'"))
        }
    }
}
