import AudioSessionClient

/// What a player or recorder tells its app (and `audiosessionctl play`/`record` print) as it goes.
public enum TransportEvent: Sendable, Equatable {
    /// It moved to this state, and why in words ("interrupted", "headphones went away").
    case state(TransportRules.State, because: String)
    /// The gain on its samples moves to this (ducking applied by the app itself, with no sound server).
    case gain(Double)
    /// The daemon's verdict for its stream.
    case verdict(StreamVerdictUpdate)
    /// Starting failed: the session could not be activated, or the device failed.
    case failed(String)
}
