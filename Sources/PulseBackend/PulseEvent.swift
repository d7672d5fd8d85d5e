internal import CPulse

/// Something that happened on the sound server, as a subscription reports it (indices only, no properties:
/// query the object to learn more), or the loss of the connection.
public enum PulseEvent: Sendable, Hashable {
    /// An object of `facility` with `index` appeared, changed or went away.
    case changed(PulseFacility, PulseChange, index: UInt32)
    /// The connection failed or the server went away; no further events follow and every call throws.
    case disconnected(reason: String)
}

/// The kind of server object an event is about.
public enum PulseFacility: Sendable, Hashable, CaseIterable {
    case sinkInput, sourceOutput, sink, source, card, server, client, module
}

/// What happened to the object.
public enum PulseChange: Sendable, Hashable {
    case new, change, remove
}

extension PulseEvent {
    /// The subscription mask for every facility this library reports.
    static var subscriptionMask: pa_subscription_mask_t {
        let masks: [pa_subscription_mask_t] = [
            PA_SUBSCRIPTION_MASK_SINK_INPUT, PA_SUBSCRIPTION_MASK_SOURCE_OUTPUT, PA_SUBSCRIPTION_MASK_SINK,
            PA_SUBSCRIPTION_MASK_SOURCE, PA_SUBSCRIPTION_MASK_CARD, PA_SUBSCRIPTION_MASK_SERVER,
            PA_SUBSCRIPTION_MASK_CLIENT, PA_SUBSCRIPTION_MASK_MODULE,
        ]
        return pa_subscription_mask_t(masks.reduce(0) { $0 | $1.rawValue })
    }

    /// The event for a subscription callback, or `nil` for facilities this library does not report.
    init?(_ type: pa_subscription_event_type_t, index: UInt32) {
        let facility: PulseFacility
        switch type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue {
        case PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue: facility = .sinkInput
        case PA_SUBSCRIPTION_EVENT_SOURCE_OUTPUT.rawValue: facility = .sourceOutput
        case PA_SUBSCRIPTION_EVENT_SINK.rawValue: facility = .sink
        case PA_SUBSCRIPTION_EVENT_SOURCE.rawValue: facility = .source
        case PA_SUBSCRIPTION_EVENT_CARD.rawValue: facility = .card
        case PA_SUBSCRIPTION_EVENT_SERVER.rawValue: facility = .server
        case PA_SUBSCRIPTION_EVENT_CLIENT.rawValue: facility = .client
        case PA_SUBSCRIPTION_EVENT_MODULE.rawValue: facility = .module
        default: return nil
        }
        let change: PulseChange
        switch type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue {
        case PA_SUBSCRIPTION_EVENT_NEW.rawValue: change = .new
        case PA_SUBSCRIPTION_EVENT_CHANGE.rawValue: change = .change
        case PA_SUBSCRIPTION_EVENT_REMOVE.rawValue: change = .remove
        default: return nil
        }
        self = .changed(facility, change, index: index)
    }
}
