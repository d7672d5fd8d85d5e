// libpulse's mainloop wakes itself through a pipe each time an event of it is added or enabled: one write, and a
// read at its next turn. That is for a mainloop blocked in poll() while another thread changes it. Its own
// callbacks change it too (every request sent enables a deferred write and starts a reply timer: two writes a
// request), and then there is nothing to wake: the mainloop is not in poll() but dispatching, and it rebuilds its
// poll set and timeout from its events before it polls again (a deferred event enabled makes that poll not wait).
//
// So the daemon's executable defines pa_mainloop_wakeup, which libpulse's own calls reach through its PLT (the
// executable's definition comes first), and leaves out the wake-ups asked for on the mainloop's own thread. Any
// other thread's go to libpulse's. Where the interposition does not happen (a libpulse linked to bind its own
// calls, a binary that does not export the symbol), libpulse's runs for every call, as without this file.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <pulse/mainloop.h>
#include "CPulseLoop.h"

static __thread pa_mainloop *running_here;
static __thread unsigned long left_out;

void asd_mainloop_runs_on_this_thread(pa_mainloop_api *api) {
    // libpulse's mainloop keeps itself in its api's userdata (the threaded mainloop's api is its inner one's).
    running_here = api->userdata;
}

unsigned long asd_mainloop_wakeups_left_out(void) {
    return left_out;
}

void pa_mainloop_wakeup(pa_mainloop *m) {
    static void (*libpulses)(pa_mainloop *);
    if (m != NULL && m == running_here) {
        left_out++;
        return;
    }
    void (*wakeup)(pa_mainloop *) = __atomic_load_n(&libpulses, __ATOMIC_ACQUIRE);
    if (wakeup == NULL) {
        wakeup = (void (*)(pa_mainloop *))dlsym(RTLD_NEXT, "pa_mainloop_wakeup");
        __atomic_store_n(&libpulses, wakeup, __ATOMIC_RELEASE);
    }
    if (wakeup != NULL) wakeup(m);
}
