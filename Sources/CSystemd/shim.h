// libsystemd's sd-bus: D-Bus connections, messages, matches and objects.
#include <systemd/sd-bus.h>
// The eventfd that wakes a connection's loop thread beside the bus descriptor.
#include <sys/eventfd.h>
