import AlsaBackend
import Foundation
import Testing

@Suite struct AudioFileTests {
    private func withScratch<Result>(_ body: (String) throws -> Result) throws -> Result {
        let directory = try makeScratchDirectory()
        defer { removeDirectory(directory) }
        return try body(directory)
    }

    private func readError(_ bytes: [UInt8]) throws -> (AlsaError, String) {
        try withScratch { directory in
            let path = directory + "/input.wav"
            try write(bytes, to: path)
            let error = try #require(throws: AlsaError.self) { try AudioFileReader(path: path) }
            return (error, path)
        }
    }

    @Test func readsPCMAndSkipsUnknownChunks() throws {
        try withScratch { directory in
            let path = directory + "/pcm.wav"
            let frames: [UInt8] = Array(0..<40)
            try write(
                WAVBuilder.file([
                    ("LIST", Array("odd".utf8)),  // odd size: padded
                    ("fmt ", WAVBuilder.fmt(tag: 1, channels: 2, rate: 48_000, bits: 16)),
                    ("fact", [0, 0, 0, 0]),
                    ("data", frames),
                ]),
                to: path
            )
            let reader = try AudioFileReader(path: path)
            #expect(reader.format == PCMFormat(sampleFormat: .s16le, channels: 2, rate: 48_000))
            #expect(reader.frameCount == 10)
            #expect(try reader.readFrames(max: 3) == Array(0..<12))
            #expect(try reader.readFrames(max: 100) == Array(12..<40))
            #expect(try reader.readFrames(max: 100) == [])
            reader.seek(toFrame: 9)
            #expect(try reader.readFrames(max: 5) == Array(36..<40))
        }
    }

    @Test(arguments: [
        (UInt16(8), PCMFormat.SampleFormat.u8), (16, .s16le), (24, .s24le), (32, .s32le),
    ])
    func readsEveryPCMDepth(bits: UInt16, expected: PCMFormat.SampleFormat) throws {
        try withScratch { directory in
            let path = directory + "/depth.wav"
            let fmt = WAVBuilder.fmt(tag: 1, channels: 1, rate: 22_050, bits: bits)
            try write(
                WAVBuilder.file([("fmt ", fmt), ("data", [UInt8](repeating: 1, count: Int(bits / 8) * 7))]),
                to: path
            )
            let reader = try AudioFileReader(path: path)
            #expect(reader.format.sampleFormat == expected)
            #expect(reader.frameCount == 7)
        }
    }

    @Test func readsFloatAndExtensible() throws {
        try withScratch { directory in
            let float = directory + "/float.wav"
            try write(
                WAVBuilder.file([
                    ("fmt ", WAVBuilder.fmt(tag: 3, channels: 2, rate: 44_100, bits: 32)),
                    ("data", [UInt8](repeating: 0, count: 32)),
                ]),
                to: float
            )
            #expect(
                try AudioFileReader(path: float).format
                    == PCMFormat(sampleFormat: .float32le, channels: 2, rate: 44_100)
            )
            let extensibleFloat = directory + "/ext-float.wav"
            try write(
                WAVBuilder.file([
                    ("fmt ", WAVBuilder.extensible(subformat: 3, channels: 2, rate: 48_000, bits: 32)),
                    ("data", [UInt8](repeating: 0, count: 16)),
                ]),
                to: extensibleFloat
            )
            let reader = try AudioFileReader(path: extensibleFloat)
            #expect(reader.format == PCMFormat(sampleFormat: .float32le, channels: 2, rate: 48_000))
            #expect(reader.frameCount == 2)
            let extensible24 = directory + "/ext-24.wav"
            try write(
                WAVBuilder.file([
                    ("fmt ", WAVBuilder.extensible(subformat: 1, channels: 2, rate: 96_000, bits: 24)),
                    ("data", [UInt8](repeating: 0, count: 12)),
                ]),
                to: extensible24
            )
            #expect(
                try AudioFileReader(path: extensible24).format
                    == PCMFormat(sampleFormat: .s24le, channels: 2, rate: 96_000)
            )
        }
    }

    @Test func truncatedDataChunkIsReadToItsRealEnd() throws {
        var bytes = WAVBuilder.file([
            ("fmt ", WAVBuilder.fmt(tag: 1, channels: 2, rate: 48_000, bits: 16)),
            ("data", [UInt8](repeating: 7, count: 402)),
        ])
        // Claim 10000 bytes of data; 402 are there (100 whole frames and a half).
        bytes.replaceSubrange(40..<44, with: [0x10, 0x27, 0, 0])
        try withScratch { directory in
            let path = directory + "/truncated.wav"
            try write(bytes, to: path)
            let reader = try AudioFileReader(path: path)
            #expect(reader.frameCount == 100)
            #expect(try reader.readFrames(max: 1000).count == 400)
        }
    }

    /// A recorder killed before `finish()` leaves sizes of 0: its audio is still there to the end of the file.
    @Test func anUnfinishedRecordingIsReadToTheEndOfTheFile() throws {
        var bytes = WAVBuilder.file([
            ("fmt ", WAVBuilder.fmt(tag: 1, channels: 1, rate: 48_000, bits: 16)),
            ("data", [UInt8](repeating: 3, count: 960)),
        ])
        bytes.replaceSubrange(4..<8, with: [0, 0, 0, 0])
        bytes.replaceSubrange(40..<44, with: [0, 0, 0, 0])
        try withScratch { directory in
            let path = directory + "/unfinished.wav"
            try write(bytes, to: path)
            #expect(try AudioFileReader(path: path).frameCount == 480)
        }
    }

    @Test func oddSizedDataIsPaddedAndCountedInTheRIFFSize() throws {
        try withScratch { directory in
            let path = directory + "/odd.wav"
            let writer = try WAVWriter(path: path, format: PCMFormat(sampleFormat: .u8, channels: 1, rate: 8_000))
            try writer.append([128, 129, 130])
            try writer.finish()
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(bytes.count == 44 + 4)
            let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            #expect(riffSize == bytes.count - 8)
            #expect(try AudioFileReader(path: path).frameCount == 3)
        }
    }

    @Test func rawFileGivenItsFormat() throws {
        try withScratch { directory in
            let path = directory + "/audio.raw"
            try write([UInt8](repeating: 0, count: 6 * 11 + 2), to: path)
            let format = try PCMFormat(parsing: "s24le:2:48000")
            let reader = try AudioFileReader(path: path, rawFormat: format)
            #expect(reader.format == format)
            #expect(reader.frameCount == 11)
        }
    }

    @Test(arguments: PCMFormat.SampleFormat.allCases)
    func writerRoundTrips(sampleFormat: PCMFormat.SampleFormat) throws {
        try withScratch { directory in
            let path = directory + "/out.wav"
            let format = PCMFormat(sampleFormat: sampleFormat, channels: 3, rate: 32_000)
            let frames = (0..<(format.bytesPerFrame * 5)).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let writer = try WAVWriter(path: path, format: format)
            try writer.append(Array(frames[0..<format.bytesPerFrame * 2]))
            try writer.append(Array(frames[(format.bytesPerFrame * 2)...]))
            #expect(writer.framesWritten == 5)
            try writer.finish()
            try writer.finish()
            let reader = try AudioFileReader(path: path)
            #expect(reader.format == format)
            #expect(reader.frameCount == 5)
            #expect(try reader.readFrames(max: 10) == frames)
        }
    }

    @Test func writerReleasedWithoutFinishStillWritesSizes() throws {
        try withScratch { directory in
            let path = directory + "/dropped.wav"
            let format = PCMFormat(sampleFormat: .s16le, channels: 1, rate: 8_000)
            do {
                let writer = try WAVWriter(path: path, format: format)
                try writer.append([1, 2, 3, 4, 5, 6])
            }
            #expect(try AudioFileReader(path: path).frameCount == 3)
            let writer = try WAVWriter(path: path, format: format)
            let error = try #require(throws: AlsaError.self) { try writer.append([1, 2, 3]) }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("3 bytes"))
        }
    }

    // MARK: - Bad input

    @Test func missingFile() throws {
        let path = "/nonexistent/alsa-tests/missing.wav"
        let error = try #require(throws: AlsaError.self) { try AudioFileReader(path: path) }
        #expect(error.code == .unreadableFile)
        #expect(error.path == path)
        #expect(error.message.contains(path))
        #expect(error.message.contains("No such file or directory"))
    }

    @Test func directoryIsNotAFile() throws {
        try withScratch { directory in
            let error = try #require(throws: AlsaError.self) { try AudioFileReader(path: directory) }
            #expect(error.code == .unreadableFile)
            #expect(error.message.contains(directory))
            #expect(error.message.contains("directory"))
        }
    }

    @Test func textFileIsNotWAV() throws {
        let (error, path) = try readError(Array("{\n  \"volume\": 1\n}\n".utf8))
        #expect(error.code == .notWAV)
        #expect(error.message.contains(path))
        #expect(error.message.contains("'RIFF'"))
        #expect(error.message.contains("7B 0A 20 20"))
    }

    @Test func tinyFileIsNotWAV() throws {
        let (error, _) = try readError(Array("RIFF".utf8))
        #expect(error.code == .notWAV)
        #expect(error.message.contains("4 bytes long"))
    }

    @Test func riffThatIsNotWave() throws {
        var bytes = WAVBuilder.file([])
        bytes.replaceSubrange(8..<12, with: Array("AVI ".utf8))
        let (error, _) = try readError(bytes)
        #expect(error.code == .notWAV)
        #expect(error.message.contains("byte 8"))
        #expect(error.message.contains("AVI "))
    }

    @Test func truncatedHeader() throws {
        let whole = WAVBuilder.file([("fmt ", WAVBuilder.fmt(tag: 1, channels: 2, rate: 44_100, bits: 16))])
        let (cutInFmt, _) = try readError(Array(whole[0..<26]))
        #expect(cutInFmt.code == .notWAV)
        #expect(cutInFmt.message.contains("'fmt ' chunk at byte 12 holds 6 bytes"))
        let (noData, _) = try readError(whole)
        #expect(noData.code == .notWAV)
        #expect(noData.message.contains("no 'data' chunk"))
        let (noFmt, _) = try readError(WAVBuilder.file([("data", [0, 0])]))
        #expect(noFmt.code == .notWAV)
        #expect(noFmt.message.contains("no 'fmt ' chunk"))
    }

    @Test(arguments: [
        (UInt16(0x0055), "WAV format tag 0x0055 (MP3) at byte 20"),
        (0x0002, "WAV format tag 0x0002 (Microsoft ADPCM) at byte 20"),
        (0x0006, "WAV format tag 0x0006 (A-law) at byte 20"),
        (0x1234, "WAV format tag 0x1234 at byte 20"),
    ])
    func unsupportedFormatTag(tag: UInt16, expected: String) throws {
        let (error, path) = try readError(
            WAVBuilder.file([("fmt ", WAVBuilder.fmt(tag: tag, channels: 2, rate: 44_100, bits: 16)), ("data", [])])
        )
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains(expected))
        #expect(error.message.contains(path))
        #expect(error.message.contains("PCM 8/16/24/32-bit or 32-bit float only"))
    }

    @Test func unsupportedExtensibleSubformat() throws {
        let (error, _) = try readError(
            WAVBuilder.file([
                ("fmt ", WAVBuilder.extensible(subformat: 0x0006, channels: 2, rate: 8_000, bits: 8)), ("data", []),
            ])
        )
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("0x0006 (A-law) at byte 44"))
    }

    @Test func twelveBitAndZeroChannels() throws {
        let (twelve, _) = try readError(
            WAVBuilder.file([("fmt ", WAVBuilder.fmt(tag: 1, channels: 1, rate: 8_000, bits: 12)), ("data", [])])
        )
        #expect(twelve.code == .unsupportedFormat)
        #expect(twelve.message.contains("12-bit PCM"))
        let (noChannels, _) = try readError(
            WAVBuilder.file([("fmt ", WAVBuilder.fmt(tag: 1, channels: 0, rate: 8_000, bits: 16)), ("data", [])])
        )
        #expect(noChannels.code == .unsupportedFormat)
        #expect(noChannels.message.contains("0 channels (at byte 22)"))
    }

    @Test(arguments: [
        ("s16le:2", "has 2 part(s)"),
        ("s17le:2:48000", "unknown sample format 's17le'"),
        ("s16le:0:48000", "channel count '0'"),
        ("s16le:2:fast", "rate 'fast'"),
        ("", "has 1 part(s)"),
    ])
    func badRawFormat(text: String, expected: String) throws {
        let error = try #require(throws: AlsaError.self) { try PCMFormat(parsing: text) }
        #expect(error.code == .badRawFormat)
        #expect(error.message.contains(expected))
        #expect(error.message.contains("'\(text)'"))
    }

    @Test func rawFormatParsesAndPrints() throws {
        let format = try PCMFormat(parsing: "float32le:6:96000")
        #expect(format == PCMFormat(sampleFormat: .float32le, channels: 6, rate: 96_000))
        #expect(format.bytesPerFrame == 24)
        #expect(format.description == "float32le:6:96000")
    }
}
