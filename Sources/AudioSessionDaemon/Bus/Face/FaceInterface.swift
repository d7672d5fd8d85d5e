import AudioSessionDaemonCore
import AudioSessionPolicy
import AudioSessionProtocol
import DBusBackend

/// The daemon's D-Bus interface: its names, its introspection data, and its properties as the daemon's status
/// has them. The introspection text is docs/dbus/org.audiosessiond.Daemon1.xml, as it is (a test compares them).
enum FaceInterface {
    /// The well-known name, the object path and the interface: the project's own namespace, version 1.
    static let busName = "org.audiosessiond.Daemon1"
    static let path = "/org/audiosessiond/Daemon1"
    static let name = "org.audiosessiond.Daemon1"

    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// The properties, as `GetAll` lists them.
    static let propertyNames = ["SilentSwitch", "ScreenLocked", "Outputs", "SelectedOutput", "Sessions"]

    /// The element signature of `Sessions`.
    static let sessionSignature = "(usssss)"

    /// The properties' values in a status.
    static func properties(of status: StatusBody) -> [String: DBusValue] {
        [
            "SilentSwitch": .string(status.silentSwitch.rawValue),
            "ScreenLocked": .bool(status.screenLocked),
            "Outputs": .strings(status.outputs.map(\.rawValue)),
            "SelectedOutput": .string(status.selectedOutput?.rawValue ?? ""),
            "Sessions": .array(
                elementSignature: sessionSignature,
                status.sessions.map { session in
                    .structure([
                        .uint32(UInt32(clamping: session.session)), .string(session.app),
                        .string(session.category.rawValue), .string(session.state.rawValue),
                        .string(session.output.rawValue), .string(session.because),
                    ])
                }
            ),
        ]
    }

    /// What `Introspect` returns: the file, its last newline included.
    static let introspection = #"""
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!-- audiosessiond's D-Bus interface (docs/DBUS.md, "The daemon's D-Bus interface"). The daemon serves this file
             as it is: a test compares the two. Only the daemon's own user and root may call it. -->
        <node name="/org/audiosessiond/Daemon1">
          <interface name="org.audiosessiond.Daemon1">
            <!-- The Ring/Silent switch: "ring" or "silent" (POLICY O4, S1). Settable. -->
            <property name="SilentSwitch" type="s" access="readwrite"/>
            <!-- The screen lock as the daemon has it (POLICY O5). -->
            <property name="ScreenLocked" type="b" access="read"/>
            <!-- The available output ports, in the order they came (speaker, headphones, bluetoothA2DP, ...). -->
            <property name="Outputs" type="as" access="read"/>
            <!-- The output the user selected (R3), or "" when none is. -->
            <property name="SelectedOutput" type="s" access="read"/>
            <!-- Each session: its number, app name, category, state (inactive, active, interrupted), what its output
                 hears (none, audible, ducked, silent) and why, in words with the rule. -->
            <property name="Sessions" type="a(usssss)" access="read"/>
            <!-- Sets the switch: "ring" or "silent". -->
            <method name="SetSilentSwitch">
              <arg name="position" type="s" direction="in"/>
            </method>
            <!-- Selects an output port, as a route picker does (R3); it must be one of Outputs. -->
            <method name="SelectOutput">
              <arg name="port" type="s" direction="in"/>
            </method>
            <!-- The last count decisions (at most the 200 kept), oldest first: each its number since the daemon
                 started and the decision in words with its reason. -->
            <method name="RecentDecisions">
              <arg name="count" type="u" direction="in"/>
              <arg name="decisions" type="a(ts)" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
        </node>

        """#
}
