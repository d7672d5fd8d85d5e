#include "CAlsaShim.h"

#include <alsa/asoundlib.h>

// snd_lib_error_handler_t is variadic, which Swift cannot implement; this one ignores its arguments.
static void silent_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}

void audiosessiond_alsa_silence_errors(void) {
    snd_lib_error_set_handler(silent_error_handler);
}
