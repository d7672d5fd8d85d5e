internal import CAlsa

extension AlsaPCM {
    /// Checks that `device` exists and takes `format` (sample format, channels and rate, resampling allowed),
    /// without starting anything: the device is opened and asked, never prepared, so a sound-server plug-in
    /// (`pulse`, `default` through it) makes no stream on the server. Throws the errors `init` would:
    /// `deviceNotFound`, `deviceBusy`, `unsupportedFormat` naming the device and what it refused.
    public static func probe(device: String, direction: Direction = .playback, format: PCMFormat) throws {
        _ = Alsa.silenced
        try format.validate("ALSA PCM '\(device)'")
        let handle = try openHandle(device: device, direction: direction)
        defer { snd_pcm_close(handle) }
        var parameters: OpaquePointer?
        try Alsa.check(snd_pcm_hw_params_malloc(&parameters), "snd_pcm_hw_params_malloc", device: device)
        defer { snd_pcm_hw_params_free(parameters) }
        try Alsa.check(snd_pcm_hw_params_any(handle, parameters), "snd_pcm_hw_params_any", device: device)
        try Alsa.check(
            snd_pcm_hw_params_set_rate_resample(handle, parameters, 1),
            "snd_pcm_hw_params_set_rate_resample",
            device: device
        )
        let refusals: [(Int32, String)] = [
            (snd_pcm_hw_params_test_access(handle, parameters, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access"),
            (
                snd_pcm_hw_params_test_format(handle, parameters, format.sampleFormat.alsaFormat),
                "the sample format \(format.sampleFormat.rawValue)"
            ),
            (
                snd_pcm_hw_params_test_channels(handle, parameters, UInt32(format.channels)),
                "\(format.channels) channels"
            ),
            (snd_pcm_hw_params_test_rate(handle, parameters, UInt32(format.rate), 0), "\(format.rate) Hz"),
        ]
        if let (_, what) = refusals.first(where: { $0.0 < 0 }) {
            throw AlsaError(
                code: .unsupportedFormat,
                message: "ALSA PCM '\(device)' does not take \(what) (asked for \(format))",
                device: device
            )
        }
    }
}
