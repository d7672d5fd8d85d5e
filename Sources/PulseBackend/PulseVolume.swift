internal import CPulse

/// A per-channel volume in PulseAudio's software scale (`pa_volume_t`): 0 is silence, `norm` (65536) is 100%,
/// and the scale is cubic, so `scaled(by: 0.25)` is about -12 dB.
public struct PulseVolume: Sendable, Hashable, CustomStringConvertible {
    /// 100%, `PA_VOLUME_NORM`.
    public static let norm: UInt32 = 0x10000
    /// Silence, `PA_VOLUME_MUTED`.
    public static let muted: UInt32 = 0
    /// The largest valid value, `PA_VOLUME_MAX`.
    public static let max: UInt32 = UInt32.max / 2
    /// The most channels a volume may have, `PA_CHANNELS_MAX`.
    public static let maxChannels = Int(PA_CHANNELS_MAX)

    /// One `pa_volume_t` per channel, in the stream's channel order.
    public var channels: [UInt32]

    /// A volume from its per-channel values.
    public init(channels: [UInt32]) {
        self.channels = channels
    }

    /// The same `value` on `channels` channels.
    public init(uniform value: UInt32, channels: Int) {
        self.channels = Array(repeating: value, count: channels)
    }

    /// The same linear factor (1.0 = 100%) on `channels` channels.
    public init(linear: Double, channels: Int) {
        self.init(uniform: pa_sw_volume_from_linear(linear), channels: channels)
    }

    /// Each channel multiplied by `linear` in the linear domain (0.25 ≈ -12 dB), clamped to `max`.
    public func scaled(by linear: Double) -> PulseVolume {
        PulseVolume(channels: channels.map { pa_sw_volume_from_linear(pa_sw_volume_to_linear($0) * linear) })
    }

    /// The arithmetic mean of the channels (`pa_cvolume_avg`); 0 with no channels.
    public var average: UInt32 {
        guard !channels.isEmpty else { return 0 }
        return UInt32(channels.reduce(UInt64(0)) { $0 + UInt64($1) } / UInt64(channels.count))
    }

    /// The average as a linear factor (1.0 = 100%).
    public var linear: Double { pa_sw_volume_to_linear(average) }

    /// The average in decibels (`-infinity` for silence).
    public var decibels: Double { pa_sw_volume_to_dB(average) }

    /// Whether libpulse accepts this volume: 1 to 32 channels, none above `max`.
    public var isValid: Bool {
        (1...PulseVolume.maxChannels).contains(channels.count) && channels.allSatisfy { $0 <= PulseVolume.max }
    }

    public var description: String {
        let percents = channels.map { "\(Int((Double($0) * 100 / Double(PulseVolume.norm)).rounded()))%" }
        return "[" + percents.joined(separator: " ") + "]"
    }
}

extension PulseVolume {
    /// The volume of a `pa_cvolume`.
    init(_ volume: pa_cvolume) {
        var copy = volume
        let count = min(Int(copy.channels), PulseVolume.maxChannels)
        channels = withUnsafeBytes(of: &copy.values) { Array($0.bindMemory(to: pa_volume_t.self).prefix(count)) }
    }

    /// The `pa_cvolume` for this volume, or an invalid-argument error naming `operation`.
    func cVolume(for operation: String) throws(PulseError) -> pa_cvolume {
        guard isValid else {
            throw PulseError(
                code: .invalidArgument,
                operation: operation,
                message:
                    "invalid volume \(channels): 1 to \(PulseVolume.maxChannels) channels, each at most \(PulseVolume.max)"
            )
        }
        var volume = pa_cvolume()
        volume.channels = UInt8(channels.count)
        withUnsafeMutableBytes(of: &volume.values) { raw in
            let values = raw.bindMemory(to: pa_volume_t.self)
            for (channel, value) in channels.enumerated() { values[channel] = value }
        }
        return volume
    }

    /// A `pa_channel_map` of libpulse's default layout for this many channels (for stream-restore entries).
    func defaultChannelMap() -> pa_channel_map {
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels.count), PA_CHANNEL_MAP_DEFAULT)
        return map
    }
}
