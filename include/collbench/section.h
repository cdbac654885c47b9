/* Registration by the linker: a file puts the address of what it registers
 * in a named section, and the linker gathers the section of every object of
 * a library (or program, or plugin) into one array, bounded by the symbols
 * __start_<section> and __stop_<section>, which the registry of that library
 * reads. Nothing else has to list what a file registers. */
#ifndef CB_SECTION_H
#define CB_SECTION_H

/* A pointer kept in a named section, whole (the sanitizers pad no variable
 * of a section of its own) and never dropped as unused. */
#define CB_IN_SECTION(section_) __attribute__((section(#section_), used, aligned(sizeof(void *))))

/* The bounds of the section in this library alone (hidden: a plugin's own
 * are its own); weak, so that a library with nothing in it links too (both
 * NULL then). */
#define CB_SECTION_BOUNDS(type_, section_)                                                         \
  extern type_ const __start_##section_[] __attribute__((weak, visibility("hidden")));             \
  extern type_ const __stop_##section_[] __attribute__((weak, visibility("hidden")))

#endif
