// libpulse, the asynchronous API with its threaded mainloop, and the stream-restore extension.
#include <pulse/pulseaudio.h>
#include <pulse/ext-stream-restore.h>
// The eventfd that wakes the mainloop for jobs a task enqueues on it (PulseLoopExecutor).
#include <sys/eventfd.h>
