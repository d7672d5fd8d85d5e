internal import CAlsa
import Glibc
import Locking

/// The controls of one ALSA card through its CTL device (`hw:0`, `pulse`): its jacks, and notification when
/// any control changes.
///
/// Thread-safe: ALSA calls are made under one lock; `waitForEvent` polls without it. Meant for one waiting
/// thread at a time.
public final class AlsaCardControls: Sendable {
    /// The CTL device name.
    public let card: String

    private let state: Locked<State>

    private struct State {
        var ctl: OpaquePointer?
        var subscribed = false
    }

    /// Opens the CTL device `card`. Throws `deviceNotFound` naming it if there is no such card.
    public init(card: String) throws {
        _ = Alsa.silenced
        var opened: OpaquePointer?
        try Alsa.check(
            snd_ctl_open(&opened, card, Int32(SND_CTL_NONBLOCK)),
            "cannot open the controls of ALSA card '\(card)'",
            device: card
        )
        guard let ctl = opened else {
            throw AlsaError(code: .io, message: "snd_ctl_open gave nothing for '\(card)'", device: card)
        }
        self.card = card
        state = Locked(State(ctl: ctl))
    }

    deinit {
        close()
    }

    /// Every jack control: interface CARD, type BOOLEAN, name ending in " Jack", in the card's order.
    public func jacks() throws -> [JackControl] {
        try state.withLock { state in
            let ctl = try open(state)
            var list: OpaquePointer?
            try Alsa.check(snd_ctl_elem_list_malloc(&list), "snd_ctl_elem_list_malloc", device: card)
            defer { snd_ctl_elem_list_free(list) }
            try Alsa.check(
                snd_ctl_elem_list(ctl, list),
                "cannot list the controls of ALSA card '\(card)'",
                device: card
            )
            let count = snd_ctl_elem_list_get_count(list)
            try Alsa.check(snd_ctl_elem_list_alloc_space(list, count), "snd_ctl_elem_list_alloc_space", device: card)
            defer { snd_ctl_elem_list_free_space(list) }
            try Alsa.check(
                snd_ctl_elem_list(ctl, list),
                "cannot list the controls of ALSA card '\(card)'",
                device: card
            )

            var id: OpaquePointer?
            var info: OpaquePointer?
            var value: OpaquePointer?
            try Alsa.check(snd_ctl_elem_id_malloc(&id), "snd_ctl_elem_id_malloc", device: card)
            defer { snd_ctl_elem_id_free(id) }
            try Alsa.check(snd_ctl_elem_info_malloc(&info), "snd_ctl_elem_info_malloc", device: card)
            defer { snd_ctl_elem_info_free(info) }
            try Alsa.check(snd_ctl_elem_value_malloc(&value), "snd_ctl_elem_value_malloc", device: card)
            defer { snd_ctl_elem_value_free(value) }

            var jacks: [JackControl] = []
            for index in 0..<snd_ctl_elem_list_get_used(list) {
                guard snd_ctl_elem_list_get_interface(list, index) == SND_CTL_ELEM_IFACE_CARD,
                    let cName = snd_ctl_elem_list_get_name(list, index)
                else { continue }
                let name = String(cString: cName)
                guard JackControl.isJackName(name) else { continue }
                snd_ctl_elem_list_get_id(list, index, id)
                snd_ctl_elem_info_set_id(info, id)
                try Alsa.check(
                    snd_ctl_elem_info(ctl, info),
                    "cannot inspect control '\(name)' of '\(card)'",
                    device: card
                )
                guard snd_ctl_elem_info_get_type(info) == SND_CTL_ELEM_TYPE_BOOLEAN else { continue }
                snd_ctl_elem_value_set_id(value, id)
                try Alsa.check(
                    snd_ctl_elem_read(ctl, value),
                    "cannot read control '\(name)' of '\(card)'",
                    device: card
                )
                let plugged = (0..<snd_ctl_elem_info_get_count(info)).contains {
                    snd_ctl_elem_value_get_boolean(value, $0) != 0
                }
                jacks.append(JackControl(name: name, isPlugged: plugged))
            }
            return jacks
        }
    }

    /// Waits until any control of the card changes (a jack plugged, a volume moved), or until the timeout.
    /// Returns whether something changed; the caller then reads what it cares about, e.g. `jacks()`.
    public func waitForEvent(timeoutMilliseconds: Int) throws -> Bool {
        var descriptors = try state.withLock { state in
            let ctl = try open(state)
            if !state.subscribed {
                try Alsa.check(
                    snd_ctl_subscribe_events(ctl, 1),
                    "cannot subscribe to the events of ALSA card '\(card)'",
                    device: card
                )
                state.subscribed = true
            }
            var descriptors = [pollfd](repeating: pollfd(), count: Int(snd_ctl_poll_descriptors_count(ctl)))
            let count = snd_ctl_poll_descriptors(ctl, &descriptors, UInt32(descriptors.count))
            try Alsa.check(count, "cannot poll the controls of ALSA card '\(card)'", device: card)
            descriptors.removeLast(descriptors.count - Int(count))
            return descriptors
        }
        // Events may already be queued; then there is no need to wait.
        if try drainEvents() > 0 { return true }
        // Without the lock, so that other threads can read the controls meanwhile.
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: max(0, timeoutMilliseconds)))
        if ready < 0 && errno != EINTR {
            let reason = errnoText(errno)
            throw AlsaError(code: .io, message: "poll on the controls of ALSA card '\(card)': \(reason)", device: card)
        }
        guard ready > 0 else { return false }
        try state.withLock { state in
            var events: UInt16 = 0
            snd_ctl_poll_descriptors_revents(try open(state), &descriptors, UInt32(descriptors.count), &events)
        }
        return try drainEvents() > 0
    }

    /// Closes the CTL device; idempotent. Later calls throw `closed`.
    public func close() {
        state.withLock { state in
            if let ctl = state.ctl { snd_ctl_close(ctl) }
            state.ctl = nil
        }
    }

    // MARK: - Private

    /// Reads every queued event (the device is non-blocking) and returns how many there were.
    private func drainEvents() throws -> Int {
        try state.withLock { state in
            let ctl = try open(state)
            var event: OpaquePointer?
            try Alsa.check(snd_ctl_event_malloc(&event), "snd_ctl_event_malloc", device: card)
            defer { snd_ctl_event_free(event) }
            var count = 0
            while true {
                let result = snd_ctl_read(ctl, event)
                if result == 0 || result == -EAGAIN { return count }
                try Alsa.check(result, "cannot read the events of ALSA card '\(card)'", device: card)
                count += 1
            }
        }
    }

    private func open(_ state: State) throws -> OpaquePointer {
        guard let ctl = state.ctl else {
            throw AlsaError(code: .closed, message: "the controls of ALSA card '\(card)' were closed", device: card)
        }
        return ctl
    }
}
