// libyaml: the YAML 1.1 parser the configuration and scenario files are read with.
#include <yaml.h>
