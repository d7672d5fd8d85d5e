internal import CAlsa
import Glibc
import Locking

/// One simple mixer control of an ALSA card (e.g. `Master` of `default`, `hw:0` or `pulse`): its playback
/// volume and switch, and notification when anyone changes them.
///
/// Thread-safe: ALSA calls are made under one lock; `waitForChange` polls without it, so one thread can wait
/// for changes while others set the volume. It is meant for one waiting thread at a time.
public final class AlsaMixer: Sendable {
    /// The CTL device the mixer is attached to.
    public let card: String
    /// The simple control's name.
    public let control: String
    /// The simple control's index (controls with the same name are told apart by it).
    public let index: Int
    /// Whether the control has a playback switch (mute).
    public let hasSwitch: Bool
    /// Whether the control has a playback volume.
    public let hasVolume: Bool

    private let state: Locked<State>

    private struct State {
        var mixer: OpaquePointer?
        var element: OpaquePointer?
    }

    /// Opens the mixer of `card` and finds the simple control `control`,`index`. Throws `deviceNotFound` for an
    /// unknown card, `controlNotFound` (listing the controls the card has) for an unknown control.
    public init(card: String = "default", control: String = "Master", index: Int = 0) throws {
        _ = Alsa.silenced
        var opened: OpaquePointer?
        try Alsa.check(snd_mixer_open(&opened, 0), "cannot create a mixer for ALSA card '\(card)'", device: card)
        guard let mixer = opened else {
            throw AlsaError(code: .io, message: "snd_mixer_open gave no mixer for '\(card)'", device: card)
        }
        let element: OpaquePointer
        do {
            try Alsa.check(snd_mixer_attach(mixer, card), "cannot open the mixer of ALSA card '\(card)'", device: card)
            try Alsa.check(snd_mixer_selem_register(mixer, nil, nil), "snd_mixer_selem_register", device: card)
            try Alsa.check(snd_mixer_load(mixer), "cannot load the controls of ALSA card '\(card)'", device: card)
            element = try Self.find(control, index: index, in: mixer, card: card)
        } catch {
            snd_mixer_close(mixer)
            throw error
        }
        self.card = card
        self.control = control
        self.index = index
        hasSwitch = snd_mixer_selem_has_playback_switch(element) != 0
        hasVolume = snd_mixer_selem_has_playback_volume(element) != 0
        state = Locked(State(mixer: mixer, element: element))
    }

    deinit {
        close()
    }

    /// The simple controls of the card, as `Name` or `Name,index` for an index other than 0.
    public func controlNames() throws -> [String] {
        try state.withLock { state in
            Self.names(in: try open(state).mixer)
        }
    }

    /// The playback volume, 0...1 over the control's range, averaged over its channels.
    public func volume() throws -> Double {
        try state.withLock { state in
            let (mixer, element) = try open(state)
            try requireVolume()
            snd_mixer_handle_events(mixer)
            let (low, high) = Self.range(element)
            let values = Self.channels(element).map { channel in
                var value = 0
                snd_mixer_selem_get_playback_volume(element, channel, &value)
                return value
            }
            guard high > low, !values.isEmpty else { return 0 }
            let mean = Double(values.reduce(0, +)) / Double(values.count)
            return (mean - Double(low)) / Double(high - low)
        }
    }

    /// Sets every channel's playback volume to `volume` (clamped to 0...1) of the control's range.
    public func setVolume(_ volume: Double) throws {
        try state.withLock { state in
            let (_, element) = try open(state)
            try requireVolume()
            let (low, high) = Self.range(element)
            let clamped = min(1, max(0, volume.isNaN ? 0 : volume))
            let value = low + Int((Double(high - low) * clamped).rounded())
            try Alsa.check(
                snd_mixer_selem_set_playback_volume_all(element, value),
                "cannot set the volume of '\(control)' on ALSA card '\(card)'",
                device: card
            )
        }
    }

    /// Whether the playback switch is off on every channel. Throws `notSupported` if there is no switch.
    public func isMuted() throws -> Bool {
        try state.withLock { state in
            let (mixer, element) = try open(state)
            try requireSwitch()
            snd_mixer_handle_events(mixer)
            return Self.switches(element).allSatisfy { $0 == 0 }
        }
    }

    /// Turns the playback switch off (`true`) or on on every channel.
    public func setMuted(_ muted: Bool) throws {
        try state.withLock { state in
            let (_, element) = try open(state)
            try requireSwitch()
            try Alsa.check(
                snd_mixer_selem_set_playback_switch_all(element, muted ? 0 : 1),
                "cannot \(muted ? "mute" : "unmute") '\(control)' on ALSA card '\(card)'",
                device: card
            )
        }
    }

    /// Waits until the control's volume or switch changes (by this process or another, e.g. `amixer` or the
    /// sound server), or until the timeout. Returns whether it changed.
    public func waitForChange(timeoutMilliseconds: Int) throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(max(0, timeoutMilliseconds)))
        let before = try state.withLock { state in Self.snapshot(try open(state).element) }
        while true {
            var descriptors = try state.withLock { state in
                let mixer = try open(state).mixer
                var descriptors = [pollfd](repeating: pollfd(), count: Int(snd_mixer_poll_descriptors_count(mixer)))
                let count = snd_mixer_poll_descriptors(mixer, &descriptors, UInt32(descriptors.count))
                try Alsa.check(count, "cannot poll the mixer of ALSA card '\(card)'", device: card)
                descriptors.removeLast(descriptors.count - Int(count))
                return descriptors
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            let milliseconds = max(0, Int((remaining / .milliseconds(1)).rounded(.up)))
            // Without the lock, so that other threads can use the mixer meanwhile.
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: milliseconds))
            if ready < 0 && errno != EINTR {
                let reason = errnoText(errno)
                throw AlsaError(code: .io, message: "poll on the mixer of ALSA card '\(card)': \(reason)", device: card)
            }
            let changed = try state.withLock { state in
                let (mixer, element) = try open(state)
                if ready > 0 {
                    var events: UInt16 = 0
                    snd_mixer_poll_descriptors_revents(mixer, &descriptors, UInt32(descriptors.count), &events)
                    try Alsa.check(
                        snd_mixer_handle_events(mixer),
                        "cannot read the events of ALSA card '\(card)'",
                        device: card
                    )
                }
                return Self.snapshot(element) != before
            }
            if changed { return true }
            if ready == 0 || ContinuousClock.now >= deadline { return false }
        }
    }

    /// Closes the mixer; idempotent. Later calls throw `closed`.
    public func close() {
        state.withLock { state in
            if let mixer = state.mixer { snd_mixer_close(mixer) }
            state.mixer = nil
            state.element = nil
        }
    }

    // MARK: - Private

    private func open(_ state: State) throws -> (mixer: OpaquePointer, element: OpaquePointer) {
        guard let mixer = state.mixer, let element = state.element else {
            throw AlsaError(code: .closed, message: "the mixer of ALSA card '\(card)' was closed", device: card)
        }
        return (mixer, element)
    }

    private func requireVolume() throws {
        guard hasVolume else {
            throw AlsaError(
                code: .notSupported,
                message: "mixer control '\(control)' of ALSA card '\(card)' has no playback volume",
                device: card
            )
        }
    }

    private func requireSwitch() throws {
        guard hasSwitch else {
            throw AlsaError(
                code: .notSupported,
                message: "mixer control '\(control)' of ALSA card '\(card)' has no playback switch (mute)",
                device: card
            )
        }
    }

    private static func find(_ control: String, index: Int, in mixer: OpaquePointer, card: String) throws
        -> OpaquePointer
    {
        var id: OpaquePointer?
        try Alsa.check(snd_mixer_selem_id_malloc(&id), "snd_mixer_selem_id_malloc", device: card)
        defer { snd_mixer_selem_id_free(id) }
        snd_mixer_selem_id_set_name(id, control)
        snd_mixer_selem_id_set_index(id, UInt32(clamping: index))
        guard let element = snd_mixer_find_selem(mixer, id) else {
            let names = Self.names(in: mixer)
            let available = names.isEmpty ? "it has none" : "it has " + names.map { "'\($0)'" }.joined(separator: ", ")
            let name = index == 0 ? control : "\(control),\(index)"
            throw AlsaError(
                code: .controlNotFound,
                message: "ALSA card '\(card)' has no mixer control '\(name)'; \(available)",
                device: card
            )
        }
        return element
    }

    private static func names(in mixer: OpaquePointer) -> [String] {
        var names: [String] = []
        var element = snd_mixer_first_elem(mixer)
        while let current = element {
            if let name = snd_mixer_selem_get_name(current) {
                let index = snd_mixer_selem_get_index(current)
                names.append(index == 0 ? String(cString: name) : "\(String(cString: name)),\(index)")
            }
            element = snd_mixer_elem_next(current)
        }
        return names
    }

    private static func range(_ element: OpaquePointer) -> (Int, Int) {
        var low = 0
        var high = 0
        snd_mixer_selem_get_playback_volume_range(element, &low, &high)
        return (low, high)
    }

    /// The playback channels the element has.
    private static func channels(_ element: OpaquePointer) -> [snd_mixer_selem_channel_id_t] {
        (0...SND_MIXER_SCHN_LAST.rawValue).map { snd_mixer_selem_channel_id_t(rawValue: $0) }
            .filter { snd_mixer_selem_has_playback_channel(element, $0) != 0 }
    }

    private static func switches(_ element: OpaquePointer) -> [Int32] {
        channels(element).map { channel in
            var value: Int32 = 0
            snd_mixer_selem_get_playback_switch(element, channel, &value)
            return value
        }
    }

    /// Volumes and switches of every channel, to tell whether anything changed.
    private static func snapshot(_ element: OpaquePointer) -> [Int] {
        channels(element).flatMap { channel in
            var value = 0
            var on: Int32 = 0
            snd_mixer_selem_get_playback_volume(element, channel, &value)
            snd_mixer_selem_get_playback_switch(element, channel, &on)
            return [value, Int(on)]
        }
    }
}
