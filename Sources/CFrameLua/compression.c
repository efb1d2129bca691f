// frame.compression: LZ4 frame decompression whose blocks reach a Lua function through the hook slot.
#include "device.h"

#include <stdlib.h>
#include <string.h>

/// Decodes one LZ4 block into `out` (capacity `capacity`); the decoded size, or -1 if malformed.
static long lz4_block(const uint8_t *in, size_t length, uint8_t *out, size_t capacity)
{
    size_t i = 0, o = 0;
    while (i < length) {
        uint8_t token = in[i++];
        size_t literals = token >> 4;
        if (literals == 15) {
            uint8_t more;
            do {
                if (i >= length) return -1;
                more = in[i++];
                literals += more;
            } while (more == 255);
        }
        if (literals > length - i || literals > capacity - o) return -1;
        memcpy(out + o, in + i, literals);
        i += literals;
        o += literals;
        if (i == length) break;  // the last sequence has literals only
        if (length - i < 2) return -1;
        size_t offset = (size_t)in[i] | (size_t)in[i + 1] << 8;
        i += 2;
        if (offset == 0 || offset > o) return -1;
        size_t match = (token & 0x0F) + 4;
        if ((token & 0x0F) == 15) {
            uint8_t more;
            do {
                if (i >= length) return -1;
                more = in[i++];
                match += more;
            } while (more == 255);
        }
        if (match > capacity - o) return -1;
        // Byte by byte: a match may overlap the bytes it produces.
        for (size_t k = 0; k < match; k++, o++) out[o] = out[o - offset];
    }
    return (long)o;
}

static uint32_t read32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/// Like the firmware: the frame header is skipped, each block is decompressed into a buffer of
/// `block_size` bytes and offered to the hook slot (so before Lua runs again only the last one is
/// left), uncompressed blocks are not supported and block checksums are not expected.
static int decompress(lua_State *L, const uint8_t *data, size_t length, size_t block_size)
{
    cframe_device *device = frame_device(L);
    if (length < 7 || read32(data) != 0x184D2204U) return -1;
    uint8_t flags = data[4];
    size_t position = 7 + ((flags >> 3) & 1 ? 8 : 0) + (flags & 1 ? 4 : 0);
    uint8_t *output = malloc(block_size);
    if (output == NULL) return -1;
    int status = 0;
    while (true) {
        if (position + 4 > length) {
            status = -1;
            break;
        }
        uint32_t size = read32(data + position);
        if (size == 0) break;
        if ((size & 0x80000000U) || size > length - position - 4) {
            status = -1;
            break;
        }
        long produced = lz4_block(data + position + 4, size, output, block_size);
        if (produced <= 0) {
            status = -1;
            break;
        }
        pthread_mutex_lock(&device->lock);
        device->block_length = (size_t)produced < FRAME_BLOCK_BUFFER ? (size_t)produced : FRAME_BLOCK_BUFFER;
        memcpy(device->block, output, device->block_length);
        frame_raise_hook_locked(device, HOOK_BLOCK);
        pthread_mutex_unlock(&device->lock);
        position += 4 + size;
    }
    free(output);
    return status;
}

static int compression_process_function(lua_State *L)
{
    return frame_set_callback(L, &frame_device(L)->block_callback);
}

static int compression_decompress(lua_State *L)
{
    size_t length;
    const char *data = luaL_checklstring(L, 1, &length);
    lua_Integer block_size = luaL_checkinteger(L, 2);
    if (block_size <= 0) luaL_error(L, "bytes must be greater than 0");
    if (block_size > 1 << 20 || decompress(L, (const uint8_t *)data, length, (size_t)block_size) != 0) {
        luaL_error(L, "decompression failed");
    }
    return 0;
}

void frame_open_compression(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"process_function", compression_process_function},
        {"decompress", compression_decompress},
        {NULL, NULL},
    };
    frame_register(L, "compression", functions);
}
