#ifndef CALSASHIM_H
#define CALSASHIM_H

/// Replaces ALSA's error handler, which prints to stderr, with one that prints nothing: the Swift layer reports
/// every failure as a typed error, so the stderr lines would only duplicate it. Safe to call more than once.
void audiosessiond_alsa_silence_errors(void);

#endif
