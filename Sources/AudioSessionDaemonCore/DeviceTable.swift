import AudioSessionPolicy

/// The sound server's sinks and sources that are policy ports, in the order they appeared.
package struct DeviceTable: Sendable {
    package struct Device: Sendable, Equatable {
        package var name: String
        package var port: Port
        package var order: Int
    }

    package private(set) var sinks: [UInt32: Device] = [:]
    package private(set) var sources: [UInt32: Device] = [:]
    private var nextOrder = 0

    /// Adds or updates a device; returns the port changes to report, in order.
    package mutating func update(_ index: UInt32, name: String, port: Port, isSink: Bool) -> [SoundFact] {
        var table = isSink ? sinks : sources
        defer { if isSink { sinks = table } else { sources = table } }
        if let known = table[index], known.port == port {
            table[index]?.name = name
            return []
        }
        var facts: [SoundFact] = []
        if let known = table.removeValue(forKey: index), !table.values.contains(where: { $0.port == known.port }) {
            facts.append(.portGone(known.port))
        }
        nextOrder += 1
        table[index] = Device(name: name, port: port, order: nextOrder)
        facts.append(.portAvailable(port))
        return facts
    }

    /// Removes a device; returns `portGone` when no other device is that port.
    package mutating func remove(_ index: UInt32, isSink: Bool) -> [SoundFact] {
        var table = isSink ? sinks : sources
        defer { if isSink { sinks = table } else { sources = table } }
        guard let known = table.removeValue(forKey: index) else { return [] }
        return table.values.contains { $0.port == known.port } ? [] : [.portGone(known.port)]
    }

    /// The device a port plays to (or records from): the most recent one that is that port.
    package func device(for port: Port?, isSink: Bool) -> UInt32? {
        guard let port else { return nil }
        let table = isSink ? sinks : sources
        return table.filter { $0.value.port == port }.max { $0.value.order < $1.value.order }?.key
    }

    package func sink(named name: String) -> (index: UInt32, device: Device)? {
        sinks.first { $0.value.name == name }.map { ($0.key, $0.value) }
    }
}
