/// The half of a player or recorder that moves samples: a thread of its own with the ALSA stream. The
/// transport tells it what to do; it tells the transport when the file (or the recording's limit) ends.
protocol TransportPump: Sendable {
    /// Move samples (open or resume the device as needed).
    func run()
    /// Stop moving samples where they are; `run()` goes on from there.
    func halt()
    /// Stop for good: a player goes back to the start of its file, a recorder finishes its file.
    func stop()
    /// Move the samples' gain to `gain` over `milliseconds`.
    func fade(to gain: Double, milliseconds: Int)
    /// Let go of the device and the file; the thread ends.
    func close()
}
