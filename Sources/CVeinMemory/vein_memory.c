#include "vein_memory.h"
#include <malloc.h>
#include <string.h>
#include <sys/prctl.h>

int vein_keep_out_of_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void vein_wipe(void *bytes, size_t length) {
    if (bytes && length) explicit_bzero(bytes, length);
}

size_t vein_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
