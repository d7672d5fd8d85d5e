import AudioSessionPolicy

/// The output the user picked (R3), kept across the daemon finding the devices again. R3 keeps a selection
/// until the next connect; but when the daemon starts, or the sound server comes back, every device is
/// reported as connecting, which is not the user plugging anything in. So the selection is remembered apart
/// from the engine's, not changed by the inventory's port events, and given back to the engine after it.
package struct StateOutputMemory: Sendable, Equatable {
    /// The user's selection as last known (persisted in `settings.json`).
    package var selection: Port?
    /// From `serverConnected` to `inventoryTaken`.
    package var takingInventory = false
}

extension DaemonCore {
    /// After each input: the engine's selection is the user's, except that the inventory's connects do not
    /// clear it (a selection made meanwhile still counts).
    package mutating func noteOutputSelection() {
        let current = engine.availablePorts.selection
        if !outputMemory.takingInventory || current != nil { outputMemory.selection = current }
    }

    /// The inventory is complete (or the daemon starts with no sound server): the remembered selection is
    /// given back to the engine if its port is there; if it is not, it went away meanwhile, which ends it (R3).
    package mutating func restoreOutputSelection() {
        outputMemory.takingInventory = false
        guard let port = outputMemory.selection else { return }
        guard engine.availablePorts.outputs.contains(port) else {
            effects.append(
                .log("the output selected before (\(port.rawValue)) is not there any more; selection dropped (R3)")
            )
            outputMemory.selection = nil
            return
        }
        guard engine.availablePorts.selection != port else { return }
        effects.append(.log("the output selected before (\(port.rawValue)) is selected again (R3)"))
        run(.outputSelected(port))
    }
}
