// libasound: PCM, mixer and control interfaces (alsa/asoundlib.h pulls them all in).
#include <alsa/asoundlib.h>
