#ifndef VEIN_MEMORY_H
#define VEIN_MEMORY_H

#include <stddef.h>

// Keeping key material out of reach: prctl is variadic (Swift cannot call it), and a plain memset
// before free may be removed by the optimizer.

/// Makes the process non-dumpable (PR_SET_DUMPABLE 0): no core dump, no ptrace attach by the same
/// user, /proc/PID/mem and environ owned by root. Returns 0, or -1 with errno.
int vein_keep_out_of_core_dumps(void);

/// Overwrites `length` bytes at `bytes` with zeros in a way the compiler may not drop.
void vein_wipe(void *bytes, size_t length);

/// The bytes malloc has handed out and not had back, in its arenas and its separately mapped blocks
/// (mallinfo2, which Swift's Glibc module does not show): what a benchmark holds, unlike the resident size,
/// which keeps what was freed.
size_t vein_heap_in_use(void);

#endif
