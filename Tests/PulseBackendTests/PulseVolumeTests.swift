import PulseBackend
import Testing

@Suite("PulseVolume", .timeLimit(.minutes(4)))
struct PulseVolumeTests {
    @Test func quarterLinearIsAboutMinusTwelveDecibels() {
        let full = PulseVolume(uniform: PulseVolume.norm, channels: 2)
        let quarter = full.scaled(by: 0.25)
        #expect(abs(quarter.decibels - -12.04) < 0.05)
        #expect(abs(quarter.linear - 0.25) < 0.001)
        #expect(quarter.channels.count == 2)
        #expect(full.linear == 1)
        #expect(full.scaled(by: 0).average == PulseVolume.muted)
        #expect(full.scaled(by: 1) == full)
    }

    @Test func averageAndValidity() {
        #expect(PulseVolume(channels: [0, 65536]).average == 32768)
        #expect(PulseVolume(channels: []).average == 0)
        #expect(!PulseVolume(channels: []).isValid)
        #expect(!PulseVolume(channels: [PulseVolume.max + 1]).isValid)
        #expect(PulseVolume(uniform: PulseVolume.norm, channels: 32).isValid)
        #expect(!PulseVolume(uniform: PulseVolume.norm, channels: 33).isValid)
        #expect(PulseVolume(linear: 1, channels: 1) == PulseVolume(uniform: PulseVolume.norm, channels: 1))
    }
}
