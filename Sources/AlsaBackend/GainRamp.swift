/// A linear gain applied in place to interleaved samples, which can glide to a new gain over a number of frames
/// (so that ducking and fading do not click). Results are rounded and clipped to the format's range; float
/// samples are clipped to -1...1.
public struct GainRamp: Sendable, Equatable {
    /// The gain the next frame gets once a ramp is over; during a ramp, the gain reached so far.
    public private(set) var currentGain: Double
    /// The gain the ramp ends at.
    public private(set) var targetGain: Double

    private var rampStart: Double
    private var rampLength = 0
    private var rampPosition = 0

    /// A constant `gain` (1 leaves samples untouched).
    public init(gain: Double = 1) {
        currentGain = gain
        targetGain = gain
        rampStart = gain
    }

    /// Whether a ramp is in progress.
    public var isRamping: Bool { rampPosition < rampLength }

    /// Glides from the current gain to `gain` over `frames` frames: frame `i` of the ramp (1-based) gets
    /// `current + (gain - current) * i / frames`, so the last frame of the ramp gets exactly `gain`.
    /// `frames <= 0` jumps at once.
    public mutating func setTarget(_ gain: Double, overFrames frames: Int) {
        rampStart = currentGain
        targetGain = gain
        rampLength = max(0, frames)
        rampPosition = 0
        if rampLength == 0 { currentGain = gain }
    }

    /// Applies the gain to the whole frames of `bytes` (trailing partial frames are left alone), advancing the
    /// ramp by one step per frame.
    public mutating func apply(to bytes: inout [UInt8], format: PCMFormat) {
        if !isRamping && currentGain == 1 { return }
        let frameBytes = format.bytesPerFrame
        guard frameBytes > 0 else { return }
        let frames = bytes.count / frameBytes
        let sampleBytes = format.sampleFormat.bytesPerSample
        bytes.withUnsafeMutableBytes { buffer in
            for frame in 0..<frames {
                let gain = nextFrameGain()
                var offset = frame * frameBytes
                for _ in 0..<format.channels {
                    Self.scale(buffer, at: offset, format: format.sampleFormat, by: gain)
                    offset += sampleBytes
                }
            }
        }
    }

    /// The gain of the next frame, stepping the ramp.
    private mutating func nextFrameGain() -> Double {
        guard isRamping else { return currentGain }
        rampPosition += 1
        currentGain =
            rampPosition == rampLength
            ? targetGain
            : rampStart + (targetGain - rampStart) * Double(rampPosition) / Double(rampLength)
        return currentGain
    }

    private static func scale(
        _ buffer: UnsafeMutableRawBufferPointer,
        at offset: Int,
        format: PCMFormat.SampleFormat,
        by gain: Double
    ) {
        switch format {
        case .u8:
            let sample = Double(Int(buffer[offset]) - 128) * gain
            buffer[offset] = UInt8(clamp(sample, -128, 127) + 128)
        case .s16le:
            let sample = Int16(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int16.self))
            let scaled = Int16(clamp(Double(sample) * gain, Int(Int16.min), Int(Int16.max)))
            buffer.storeBytes(of: scaled.littleEndian, toByteOffset: offset, as: Int16.self)
        case .s24le:
            let raw = Int32(buffer[offset]) | Int32(buffer[offset + 1]) << 8 | Int32(buffer[offset + 2]) << 16
            let sample = (raw << 8) >> 8  // sign-extend from 24 bits
            let scaled = clamp(Double(sample) * gain, -8_388_608, 8_388_607)
            buffer[offset] = UInt8(truncatingIfNeeded: scaled)
            buffer[offset + 1] = UInt8(truncatingIfNeeded: scaled >> 8)
            buffer[offset + 2] = UInt8(truncatingIfNeeded: scaled >> 16)
        case .s32le:
            let sample = Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self))
            let scaled = Int32(clamp(Double(sample) * gain, Int(Int32.min), Int(Int32.max)))
            buffer.storeBytes(of: scaled.littleEndian, toByteOffset: offset, as: Int32.self)
        case .float32le:
            let bits = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            var scaled = Float(Double(Float(bitPattern: bits)) * gain)
            if scaled > 1 { scaled = 1 } else if scaled < -1 { scaled = -1 }
            buffer.storeBytes(of: scaled.bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
        }
    }

    /// `value` rounded to the nearest integer and clipped to `low...high`.
    private static func clamp(_ value: Double, _ low: Int, _ high: Int) -> Int {
        let rounded = value.rounded()
        if rounded.isNaN { return 0 }
        if rounded <= Double(low) { return low }
        if rounded >= Double(high) { return high }
        return Int(rounded)
    }
}
