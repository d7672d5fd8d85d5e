import AudioSessionConfiguration
import AudioSessionPolicy
import YAMLBackend

extension StrictYAML {
    /// The keys of `device:`.
    static let deviceKeys = ["outputs", "inputs", "silentSwitch", "screen"]

    /// `device:`: what is there before the first step. Absent keys keep `DeviceSetup`'s defaults.
    func device(_ node: YAMLNode, _ label: String) throws -> DeviceSetup {
        let mapping = try self.mapping(node, label, allowedKeys: Self.deviceKeys)
        var device = DeviceSetup()
        if let outputs = try mapping.optional("outputs", { try portList($0, $1, direction: .output) }) {
            device.outputs = outputs
        }
        if let inputs = try mapping.optional("inputs", { try portList($0, $1, direction: .input) }) {
            device.inputs = inputs
        }
        if let silentSwitch = try mapping.optional("silentSwitch", silentSwitch) {
            device.silentSwitch = silentSwitch
        }
        if let screenLocked = try mapping.optional("screen", screenLocked) {
            device.screenLocked = screenLocked
        }
        return device
    }

    /// `ring` or `silent`, in `device:` and in a `silentSwitch` step.
    func silentSwitch(_ node: YAMLNode, _ label: String) throws -> SilentSwitch {
        try choice(node, label, noun: "a switch position", [SilentSwitch.ring, .silent])
    }

    /// `locked` or `unlocked`, in `device:` and in a `screen` step.
    func screenLocked(_ node: YAMLNode, _ label: String) throws -> Bool {
        try choice(node, label, noun: "a screen state", [("locked", true), ("unlocked", false)])
    }
}
