import AlsaBackend
import Foundation
import Testing

@Suite struct GainRampTests {
    private func s16(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { sample in withUnsafeBytes(of: sample.littleEndian) { Array($0) } }
    }

    private func samples16(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }

    private let mono16 = PCMFormat(sampleFormat: .s16le, channels: 1, rate: 48_000)

    @Test func unityGainLeavesBytesUntouched() {
        var ramp = GainRamp()
        // Float bits that scaling would change (a NaN, a value above full scale): the fast path must not touch them.
        let original: [UInt8] = [0x01, 0x00, 0xC0, 0x7F, 0x00, 0x00, 0x00, 0x40, 0x42]
        var bytes = original
        ramp.apply(to: &bytes, format: PCMFormat(sampleFormat: .float32le, channels: 1, rate: 48_000))
        #expect(bytes == original)
    }

    @Test func quarterGainOnS16() {
        var ramp = GainRamp(gain: 0.25)
        var bytes = s16([1000, -1000, 32767, -32768, 3])
        ramp.apply(to: &bytes, format: mono16)
        #expect(samples16(bytes) == [250, -250, 8192, -8192, 1])
    }

    @Test func rampReachesTargetExactlyAfterNFrames() {
        var ramp = GainRamp()
        ramp.setTarget(0, overFrames: 4)
        #expect(ramp.isRamping)
        var bytes = s16([1000, 1000, 1000, 1000, 1000, 1000])
        ramp.apply(to: &bytes, format: mono16)
        #expect(samples16(bytes) == [750, 500, 250, 0, 0, 0])
        #expect(ramp.currentGain == 0)
        #expect(!ramp.isRamping)
    }

    @Test func rampStepsPerFrameNotPerSampleAndAcrossCalls() {
        var ramp = GainRamp(gain: 0)
        ramp.setTarget(1, overFrames: 3)
        let stereo = PCMFormat(sampleFormat: .s16le, channels: 2, rate: 48_000)
        var first = s16([300, -300, 300, -300])
        ramp.apply(to: &first, format: stereo)
        #expect(samples16(first) == [100, -100, 200, -200])
        var second = s16([300, -300, 300, -300])
        ramp.apply(to: &second, format: stereo)
        #expect(samples16(second) == [300, -300, 300, -300])
        #expect(ramp.currentGain == 1)
    }

    @Test func zeroFrameRampJumps() {
        var ramp = GainRamp()
        ramp.setTarget(0.5, overFrames: 0)
        #expect(!ramp.isRamping)
        #expect(ramp.currentGain == 0.5)
    }

    @Test func u8IsCentredOn128() {
        var ramp = GainRamp(gain: 0.5)
        var bytes: [UInt8] = [128, 228, 0, 28]
        ramp.apply(to: &bytes, format: PCMFormat(sampleFormat: .u8, channels: 1, rate: 8_000))
        #expect(bytes == [128, 178, 64, 78])
        var loud = GainRamp(gain: 4)
        var peaks: [UInt8] = [255, 0, 130]
        loud.apply(to: &peaks, format: PCMFormat(sampleFormat: .u8, channels: 1, rate: 8_000))
        #expect(peaks == [255, 0, 136])
    }

    @Test func s24IsThreeBytesSignExtendedAndClipped() {
        func bytes(_ values: [Int32]) -> [UInt8] {
            values.flatMap {
                [
                    UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8),
                    UInt8(truncatingIfNeeded: $0 >> 16),
                ]
            }
        }
        var quarter = GainRamp(gain: 0.25)
        var data = bytes([1_048_576, -1_048_576])
        quarter.apply(to: &data, format: PCMFormat(sampleFormat: .s24le, channels: 2, rate: 48_000))
        #expect(data == bytes([262_144, -262_144]))
        var double = GainRamp(gain: 2)
        var peaks = bytes([8_388_607, -8_388_608, 5_000_000])
        double.apply(to: &peaks, format: PCMFormat(sampleFormat: .s24le, channels: 3, rate: 48_000))
        #expect(peaks == bytes([8_388_607, -8_388_608, 8_388_607]))
    }

    @Test func s32IsClipped() {
        func bytes(_ values: [Int32]) -> [UInt8] {
            values.flatMap { value in withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        }
        var double = GainRamp(gain: 2)
        var data = bytes([Int32.max, Int32.min, 1 << 20])
        double.apply(to: &data, format: PCMFormat(sampleFormat: .s32le, channels: 1, rate: 48_000))
        #expect(data == bytes([Int32.max, Int32.min, 1 << 21]))
    }

    @Test func floatIsScaledAndClippedToFullScale() {
        func bytes(_ values: [Float]) -> [UInt8] {
            values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        }
        var double = GainRamp(gain: 2)
        var data = bytes([0.8, -0.8, 0.25])
        double.apply(to: &data, format: PCMFormat(sampleFormat: .float32le, channels: 1, rate: 48_000))
        #expect(data == bytes([1, -1, 0.5]))
        var quarter = GainRamp(gain: 0.25)
        var half = bytes([0.5])
        quarter.apply(to: &half, format: PCMFormat(sampleFormat: .float32le, channels: 1, rate: 48_000))
        #expect(half == bytes([0.125]))
    }

    @Test func trailingPartialFrameIsLeftAlone() {
        var ramp = GainRamp(gain: 0)
        var bytes: [UInt8] = [0x10, 0x10, 0x77]
        ramp.apply(to: &bytes, format: mono16)
        #expect(bytes == [0, 0, 0x77])
    }
}
