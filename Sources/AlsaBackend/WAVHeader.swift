/// Where the audio of a WAV file is and how it is stored, found by walking its RIFF chunks.
struct WAVHeader: Sendable, Equatable {
    var format: PCMFormat
    /// Byte offset of the first frame.
    var dataOffset: Int
    /// Bytes of audio actually in the file: the data chunk's declared size, cut at the real end of the file.
    var dataSize: Int

    /// Format tags seen in the wild, to name them in errors.
    static let tagNames: [UInt16: String] = [
        0x0001: "PCM", 0x0002: "Microsoft ADPCM", 0x0003: "IEEE float", 0x0006: "A-law", 0x0007: "µ-law",
        0x0011: "IMA ADPCM", 0x0031: "GSM 6.10", 0x0050: "MPEG", 0x0055: "MP3", 0x0161: "WMA", 0x2000: "AC-3",
        0xF1AC: "FLAC", 0xFFFE: "extensible",
    ]

    static let supported = "PCM 8/16/24/32-bit or 32-bit float only"

    /// Reads the header of `file`.
    static func read(_ file: PosixFile) throws -> WAVHeader {
        let path = file.path
        func notWAV(_ message: String) -> AlsaError {
            AlsaError(code: .notWAV, message: "\(path) is not a WAV file: \(message)", path: path)
        }
        let fileSize = try file.size()
        let riff = try file.read(count: 12, at: 0)
        guard riff.count == 12 else {
            throw notWAV("it is \(riff.count) bytes long; a WAV file starts with a 12-byte RIFF header")
        }
        let magic = fourCC(riff, at: 0)
        if magic == "RIFX" {
            throw AlsaError(
                code: .unsupportedFormat,
                message: "\(path) is a big-endian (RIFX) WAV file; only little-endian RIFF is supported",
                path: path
            )
        }
        guard magic == "RIFF" else {
            throw notWAV("it starts with \(describe(Array(riff[0..<4]))) instead of 'RIFF'")
        }
        guard fourCC(riff, at: 8) == "WAVE" else {
            throw notWAV("the RIFF form type at byte 8 is \(describe(Array(riff[8..<12]))) instead of 'WAVE'")
        }

        var format: PCMFormat?
        var data: (offset: Int, size: Int)?
        var offset = 12
        while format == nil || data == nil {
            let header = try file.read(count: 8, at: offset)
            guard header.count == 8 else { break }
            let id = fourCC(header, at: 0)
            let size = Int(header.littleEndian(UInt32.self, at: 4))
            switch id {
            case "fmt ":
                let body = try file.read(count: min(size, 40), at: offset + 8)
                format = try parseFormat(body, declaredSize: size, at: offset + 8, path: path)
            case "data":
                // A size of 0 (a writer that never finished: a recorder killed mid-recording) or 0xFFFFFFFF (a
                // streaming writer) means "to the end of the file".
                let rest = max(0, fileSize - offset - 8)
                data = (offset + 8, size == 0 || size == 0xFFFF_FFFF ? rest : min(size, rest))
            default:
                break
            }
            // Chunks are padded to an even size.
            offset += 8 + size + (size & 1)
        }
        guard let format else { throw notWAV("it has no 'fmt ' chunk") }
        guard let data else { throw notWAV("it has no 'data' chunk") }
        return WAVHeader(format: format, dataOffset: data.offset, dataSize: data.size)
    }

    /// Parses a `fmt ` chunk body found at byte `start`.
    private static func parseFormat(_ body: [UInt8], declaredSize: Int, at start: Int, path: String) throws
        -> PCMFormat
    {
        guard declaredSize >= 16, body.count >= 16 else {
            throw AlsaError(
                code: .notWAV,
                message: "\(path) is not a WAV file: the 'fmt ' chunk at byte \(start - 8) holds "
                    + "\(min(declaredSize, body.count)) bytes; at least 16 are needed",
                path: path
            )
        }
        func unsupported(_ what: String) -> AlsaError {
            AlsaError(code: .unsupportedFormat, message: "\(path): \(what) is not supported; \(supported)", path: path)
        }
        var tag = body.littleEndian(UInt16.self, at: 0)
        var tagOffset = start
        let channels = Int(body.littleEndian(UInt16.self, at: 2))
        let rate = Int(body.littleEndian(UInt32.self, at: 4))
        let bits = Int(body.littleEndian(UInt16.self, at: 14))
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID.
            guard body.count >= 26 else {
                throw unsupported("a WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk at byte \(start - 8) of \(body.count) bytes")
            }
            tag = body.littleEndian(UInt16.self, at: 24)
            tagOffset = start + 24
        }
        let sampleFormat: PCMFormat.SampleFormat
        switch (tag, bits) {
        case (1, 8): sampleFormat = .u8
        case (1, 16): sampleFormat = .s16le
        case (1, 24): sampleFormat = .s24le
        case (1, 32): sampleFormat = .s32le
        case (3, 32): sampleFormat = .float32le
        case (1, _), (3, _):
            let kind = tag == 1 ? "PCM" : "float"
            throw unsupported("\(bits)-bit \(kind) (bits per sample at byte \(start + 14))")
        default:
            let name = tagNames[tag].map { " (\($0))" } ?? ""
            throw unsupported("WAV format tag \(hex(tag))\(name) at byte \(tagOffset)")
        }
        guard channels > 0 else { throw unsupported("0 channels (at byte \(start + 2))") }
        let format = PCMFormat(sampleFormat: sampleFormat, channels: channels, rate: rate)
        guard PCMFormat.channelRange.contains(channels) else {
            throw unsupported("\(channels) channels (at byte \(start + 2))")
        }
        guard PCMFormat.rateRange.contains(rate) else {
            throw unsupported("a rate of \(rate) Hz (at byte \(start + 4))")
        }
        return format
    }

    static func fourCC(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    static func hex(_ tag: UInt16) -> String {
        let digits = String(tag, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Bytes as hex, with their text when they are printable: `7B 0A 20 20 ("{\n  ")`.
    static func describe(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        let text = bytes.map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
        return "\(hex.joined(separator: " ")) (\"\(text)\")"
    }
}
