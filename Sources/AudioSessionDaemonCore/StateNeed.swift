import AudioSessionPolicy
import AudioSessionProtocol

/// What a request needs written in the state directory before it may take effect (docs/STATE.md, "A full
/// disk"). Facts the daemon is told (a port connected, a stream started) and requests that only give values
/// back (deactivate) need nothing: they are never refused for a full disk.
package enum StateNeed {
    /// `settings.json`: the switch, the screen lock, the output the user selected.
    case setting
    /// `streams.json`, ahead of the policy silencing, ducking or moving streams.
    case streamJournal

    package init?(_ request: Request) {
        switch request.command {
        case .setSilentSwitch, .setScreenLock: self = .setting
        case .selectOutput(let name):
            // A name that is no output port is refused for what it is, not for the disk.
            guard let port = AudioSessionPolicy.Port(rawValue: name), port.isOutput else { return nil }
            self = .setting
        case .activate, .setCategory, .overrideOutput: self = .streamJournal
        default: return nil
        }
    }
}
