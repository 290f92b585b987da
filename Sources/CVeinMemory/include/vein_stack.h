#ifndef VEIN_STACK_H
#define VEIN_STACK_H

#include <stddef.h>
#include <stdint.h>

// The lowest address of the calling thread's stack (pthread_getattr_np is a GNU extension that Swift's
// Glibc module does not show), and its size. Returns 0, or -1 when they cannot be known.
int vein_stack_lower_bound(uintptr_t *bound_out, size_t *size_out);

// An address in the caller's part of the real stack. (The address of a Swift local is not one under the
// address sanitizer, which may keep locals on a "fake stack" on the heap.)
uintptr_t vein_stack_pointer(void);

#endif
