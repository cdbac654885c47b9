/* The version of collbench's kernel API (the headers of this folder): what a
 * kernel of ours and a plugin are written against. A plugin records the
 * version it was built with (CB_PLUGIN, plugin.h), and a program refuses a
 * plugin of another version before any GPU work. It grows whenever a type,
 * a function or a macro of this folder changes its layout or meaning. */
#ifndef COLLBENCH_VERSION_H
#define COLLBENCH_VERSION_H

#define CB_KERNEL_API_VERSION 1

#endif
