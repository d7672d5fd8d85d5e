#ifndef CPULSELOOP_H
#define CPULSELOOP_H

#include <pulse/mainloop-api.h>

/// Marks the calling thread as the one that runs the mainloop behind `api` (its callbacks, with its lock held):
/// libpulse's wake-ups of that mainloop from this thread are left out (see wakeup.c). Called again with another
/// api, it marks that one instead.
void asd_mainloop_runs_on_this_thread(pa_mainloop_api *api);

/// The number of wake-ups left out on this thread since it started: a test's proof that the interposition works.
unsigned long asd_mainloop_wakeups_left_out(void);

#endif
