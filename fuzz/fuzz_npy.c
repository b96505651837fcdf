/* libFuzzer target: .npy decoding. Every malformed image must come back as
 * TENSOR_ERR_FORMAT (or NOMEM) with a message, never a crash or over-read;
 * an image that decodes must describe exactly the bytes it was given. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decoded tensor must be self-consistent, and its data must fit in
 * the input (decoding never invents bytes). */
static void check_tensor(const Tensor *t, size_t size)
{
    int64_t count;
    if (!tensor_shape_count(t->rank, t->dims, &count) || count != t->count ||
        t->nbytes != (size_t)count * dtype_size(t->dtype) || t->nbytes > size) {
        fprintf(stderr, "inconsistent tensor from npy_decode\n");
        abort();
    }
    char buf[TENSOR_TYPE_STR_SIZE];
    tensor_type_str(t, buf);
    if (t->count > 0) { /* touch both ends of the data: ASan checks the size */
        volatile double ends = tensor_get_f64(t, 0) + tensor_get_f64(t, t->count - 1);
        (void)ends;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy, so ASan catches any read past `size`. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    TensorAccounting acct = {0};
    TensorCtx ctx;
    tensor_ctx_init(&ctx, &acct);
    Tensor *t = NULL;
    TensorStatus status = npy_decode(&ctx, copy, size, &t);
    if (status == TENSOR_OK) {
        check_tensor(t, size);
        tensor_release(t);
    } else if (t || !ctx.msg[0]) {
        fprintf(stderr, "npy_decode failed without a message or left a tensor\n");
        abort();
    }
    if (acct.current_bytes != 0) {
        fprintf(stderr, "npy_decode leaked %lld accounted bytes\n", (long long)acct.current_bytes);
        abort();
    }
    free(copy);
    return 0;
}
