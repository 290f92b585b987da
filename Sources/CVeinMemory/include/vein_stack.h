#ifndef VEIN_STACK_H
#define VEIN_STACK_H

#include <stddef.h>
#include <stdint.h>

// The lowest address of the calling thread's stack (pthread_getattr_np is a GNU extension that Swift's
// Glibc module does not show), and its size. Returns 0, or -1 when they cannot be known.
int vein_stack_lower_bound(uintptr_t *bound_out, size_t *size_out);

#endif
