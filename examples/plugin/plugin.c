/* What makes the object a plugin (collbench/plugin.h): its name, its
 * kernel API version, and its registrations (oneshot.cu's). */
#include "collbench/plugin.h"

CB_PLUGIN("oneshot");
