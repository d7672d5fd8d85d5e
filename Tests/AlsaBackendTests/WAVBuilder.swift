import Foundation

/// Hand-built WAV files, byte by byte, for the reader's tests.
struct WAVBuilder {
    var bytes: [UInt8] = []

    mutating func text(_ value: String) { bytes += Array(value.utf8) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    /// A RIFF/WAVE file with `chunks` (id and body), the RIFF size computed.
    static func file(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = WAVBuilder()
        for (id, content) in chunks {
            body.text(id)
            body.u32(UInt32(content.count))
            body.bytes += content
            if content.count % 2 == 1 { body.bytes.append(0) }
        }
        var file = WAVBuilder()
        file.text("RIFF")
        file.u32(UInt32(4 + body.bytes.count))
        file.text("WAVE")
        return file.bytes + body.bytes
    }

    /// A 16-byte `fmt ` body.
    static func fmt(tag: UInt16, channels: UInt16, rate: UInt32, bits: UInt16) -> [UInt8] {
        var fmt = WAVBuilder()
        let blockAlign = channels * max(1, bits / 8)
        fmt.u16(tag)
        fmt.u16(channels)
        fmt.u32(rate)
        fmt.u32(rate * UInt32(blockAlign))
        fmt.u16(blockAlign)
        fmt.u16(bits)
        return fmt.bytes
    }

    /// A 40-byte WAVE_FORMAT_EXTENSIBLE `fmt ` body whose sub-format GUID starts with `subformat`.
    static func extensible(subformat: UInt16, channels: UInt16, rate: UInt32, bits: UInt16) -> [UInt8] {
        var fmt = WAVBuilder()
        fmt.bytes = Self.fmt(tag: 0xFFFE, channels: channels, rate: rate, bits: bits)
        fmt.u16(22)  // cbSize
        fmt.u16(bits)  // valid bits
        fmt.u32(3)  // channel mask
        fmt.u16(subformat)
        fmt.bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        return fmt.bytes
    }
}

func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
