/// An audio port (POLICY section 4). Some are outputs, some inputs, `bluetoothHFP` and `usbAudio` both.
public enum Port: String, CaseIterable, Hashable, Sendable, Codable {
    case speaker
    case receiver
    case headphones
    case headset
    case bluetoothA2DP
    case bluetoothHFP
    case usbAudio
    case hdmi
    case lineOut
    case carAudio
    case builtInMic
    case headsetMic
    case lineIn

    /// Whether sound can be played to this port.
    public var isOutput: Bool {
        switch self {
        case .builtInMic, .headsetMic, .lineIn: false
        default: true
        }
    }

    /// Whether sound can be captured from this port.
    public var isInput: Bool {
        switch self {
        case .builtInMic, .headsetMic, .lineIn, .bluetoothHFP, .usbAudio: true
        default: false
        }
    }

    /// The input port that arrives and leaves with this one: a headset brings its microphone.
    var companionInput: Port? { self == .headset ? .headsetMic : nil }
}
