#define _GNU_SOURCE
#include "vein_stack.h"
#include <pthread.h>

int vein_stack_lower_bound(uintptr_t *bound_out, size_t *size_out) {
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return -1;
    void *base = 0;
    size_t size = 0;
    int rc = pthread_attr_getstack(&attributes, &base, &size);
    pthread_attr_destroy(&attributes);
    if (rc != 0 || base == 0) return -1;
    *bound_out = (uintptr_t)base;
    *size_out = size;
    return 0;
}

__attribute__((noinline)) uintptr_t vein_stack_pointer(void) {
    return (uintptr_t)__builtin_frame_address(0);
}
