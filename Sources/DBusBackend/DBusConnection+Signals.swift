internal import CSystemd

extension DBusConnection {
    /// The signals matching a match rule (e.g. `type='signal',interface='org.example.X',member='Changed'`), from
    /// the moment this returns (the bus has confirmed the match) until the stream is dropped or the connection is
    /// lost or closed.
    public func signals(matching rule: String) async throws(DBusError) -> AsyncStream<DBusSignal> {
        try await subscribe(rule) { $0 }
    }

    /// The signals matching `rule`, each turned into an element by `transform` (nil: skipped).
    func subscribe<Element: Sendable>(
        _ rule: String,
        _ transform: @escaping @Sendable (DBusSignal) -> Element?
    ) async throws(DBusError) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let subscription = Subscription(
            rule: rule,
            deliver: { signal in
                if let element = transform(signal) { continuation.yield(element) }
            },
            finish: { continuation.finish() }
        )
        let loop = loop
        let id = ObjectIdentifier(subscription)
        continuation.onTermination = { _ in
            loop.enqueue { loop in
                guard let loop, let subscription = loop.subscriptions.removeValue(forKey: id) else { return }
                subscription.dropSlot()
            }
        }
        let operation = "AddMatch \(rule)"
        do {
            try await withCheckedThrowingContinuation { (installed: CheckedContinuation<Void, any Error>) in
                loop.enqueue { loop in
                    guard let loop else { return installed.resume(throwing: DBusError.closed(operation: operation)) }
                    guard !loop.lost else {
                        return installed.resume(throwing: DBusError.connectionLost(operation: operation))
                    }
                    subscription.installed = installed
                    var slot: OpaquePointer? = nil
                    let added = rule.withCString {
                        sd_bus_add_match_async(
                            loop.bus,
                            &slot,
                            $0,
                            signalThunk,
                            matchInstalledThunk,
                            subscription.userdata
                        )
                    }
                    guard added >= 0 else {
                        subscription.installed = nil
                        return installed.resume(throwing: DBusError.system(operation: operation, errno: added))
                    }
                    subscription.slot = slot
                    loop.subscriptions[id] = subscription
                }
            }
        } catch {
            continuation.finish()
            throw error as? DBusError ?? .malformedMessage(operation: operation, reason: "\(error)")
        }
        return stream
    }

    /// Sends a signal from `path`.
    public func emitSignal(
        path: String,
        interface: String,
        member: String,
        arguments: [DBusValue] = [],
        destination: String? = nil
    ) async throws(DBusError) {
        let operation = "signal \(interface).\(member) from \(path)"
        try await onLoop(operation) { loop throws(DBusError) in
            var message: OpaquePointer? = nil
            let created = path.withCString { path in
                interface.withCString { interface in
                    member.withCString { member in
                        sd_bus_message_new_signal(loop.bus, &message, path, interface, member)
                    }
                }
            }
            guard created >= 0, let message else { throw .system(operation: operation, errno: created) }
            defer { sd_bus_message_unref(message) }
            if let destination {
                let set = destination.withCString { sd_bus_message_set_destination(message, $0) }
                guard set >= 0 else { throw .system(operation: operation, errno: set) }
            }
            try MessageWriter.append(arguments, to: message, operation: operation)
            let sent = sd_bus_send(loop.bus, message, nil)
            guard sent >= 0 else { throw .system(operation: operation, errno: sent) }
        }
    }

    /// A match rule with its values quoted as the D-Bus specification asks (a `'` in a value becomes `'\''`).
    public static func matchRule(_ pairs: KeyValuePairs<String, String?>) -> String {
        pairs.compactMap { key, value in
            value.map { "\(key)='\(quoted($0))'" }
        }.joined(separator: ",")
    }
}

/// A match-rule value with each `'` written as `'\''` (close the quote, an escaped quote, open it again).
private func quoted(_ value: String) -> String {
    var result = ""
    for character in value {
        if character == "'" { result += "'\\''" } else { result.append(character) }
    }
    return result
}
