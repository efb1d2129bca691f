// frame.camera: capture settings checked as the firmware checks them; the image is the JPEG the host
// configured, served in the firmware's three phases (header, data, FF D9 footer).
#include "device.h"

#include <stdlib.h>
#include <string.h>

cframe_peripherals cframe_peripheral_state(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    cframe_peripherals state = {
        .captures = device->captures,
        .resolution = device->capture_resolution,
        .pan = device->capture_pan,
        .quality = device->capture_quality,
        .camera_asleep = device->camera_asleep,
        .microphone_running = device->mic_active,
        .sample_rate = device->mic_rate,
        .bit_depth = device->mic_depth,
        .microphone_read = device->mic_tail,
        .stay_awake = device->stay_awake,
    };
    pthread_mutex_unlock(&device->lock);
    return state;
}

void cframe_set_camera_image(cframe_device *device, const uint8_t *bytes, size_t length)
{
    uint8_t *copy = malloc(length ? length : 1);
    if (copy == NULL) return;
    memcpy(copy, bytes, length);
    pthread_mutex_lock(&device->lock);
    free(device->jpeg);
    device->jpeg = copy;
    device->jpeg_length = length;
    pthread_mutex_unlock(&device->lock);
}

/// The configured image split into the firmware's parts (locked).
static void image_parts(cframe_device *device, size_t *header, size_t *body)
{
    size_t length = device->jpeg_length;
    size_t footer = length >= 2 && device->jpeg[length - 2] == 0xFF && device->jpeg[length - 1] == 0xD9 ? 2 : 0;
    *header = length - footer < FRAME_JPEG_HEADER ? length - footer : FRAME_JPEG_HEADER;
    *body = length - footer - *header;
}

static void check_awake(lua_State *L)
{
    cframe_device *device = frame_device(L);
    pthread_mutex_lock(&device->lock);
    int asleep = device->camera_asleep;
    pthread_mutex_unlock(&device->lock);
    if (asleep) luaL_error(L, "camera is asleep");
}

static int camera_capture(lua_State *L)
{
    cframe_device *device = frame_device(L);
    check_awake(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer resolution = 512, pan = 0;
    int quality_index = 4;
    if (lua_getfield(L, 1, "resolution") != LUA_TNIL) {
        resolution = luaL_checkinteger(L, -1);
        if (resolution < 100 || resolution > 720 || resolution % 2 != 0) {
            luaL_error(L, "resolution value must be a multiple of 2 between 100 and 720");
        }
    }
    if (lua_getfield(L, 1, "pan") != LUA_TNIL) {
        pan = luaL_checkinteger(L, -1);
        if (pan < -140 || pan > 140) luaL_error(L, "pan value must be value between -140 and 140");
    }
    if (lua_getfield(L, 1, "quality") != LUA_TNIL) {
        const char *quality = luaL_checkstring(L, -1);
        const char *const qualities[] = {"VERY_LOW", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"};
        quality_index = -1;
        for (int i = 0; i < 5; i++) {
            if (strcmp(quality, qualities[i]) == 0) quality_index = i;
        }
        if (quality_index < 0) luaL_error(L, "quality must be either VERY_HIGH, HIGH, MEDIUM, LOW or VERY_LOW");
    }
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    device->captured = 1;
    device->captured_at = now;
    device->captures++;
    device->capture_resolution = (int)resolution;
    device->capture_pan = (int)pan;
    device->capture_quality = quality_index;
    device->data_armed = 0;
    device->header_sent = device->data_remaining = device->data_sent = device->footer_sent = 0;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

/// Whether the capture finished; the first time it has, the image data becomes readable (locked).
static bool ready_locked(cframe_device *device, double now)
{
    if (!device->captured || now - device->captured_at < device->capture_latency) return false;
    if (!device->data_armed) {
        size_t header, body;
        image_parts(device, &header, &body);
        device->data_armed = 1;
        device->data_remaining = body;
    }
    return true;
}

static int camera_image_ready(lua_State *L)
{
    cframe_device *device = frame_device(L);
    check_awake(L);
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    bool ready = ready_locked(device, now);
    pthread_mutex_unlock(&device->lock);
    lua_pushboolean(L, ready);
    return 1;
}

static int camera_read_phases(lua_State *L, bool with_header)
{
    cframe_device *device = frame_device(L);
    lua_Integer requested = luaL_checkinteger(L, 1);
    if (requested <= 0) luaL_error(L, "bytes must be greater than 0");
    if (requested > 1 << 20) luaL_error(L, "bytes requested is too large");
    double now = frame_now(device);
    luaL_Buffer buffer;
    char *out = luaL_buffinitsize(L, &buffer, (size_t)requested);
    size_t written = 0;
    size_t remaining = (size_t)requested;

    pthread_mutex_lock(&device->lock);
    ready_locked(device, now);
    size_t header, body;
    image_parts(device, &header, &body);
    // Each call reads from one phase only, as the firmware's read does.
    if (with_header && device->header_sent < header) {
        size_t n = header - device->header_sent < remaining ? header - device->header_sent : remaining;
        memcpy(out, device->jpeg + device->header_sent, n);
        device->header_sent += n;
        written = n;
    } else if (device->data_remaining > 0) {
        size_t n = device->data_remaining < remaining ? device->data_remaining : remaining;
        memcpy(out, device->jpeg + header + device->data_sent, n);
        device->data_sent += n;
        device->data_remaining -= n;
        written = n;
    } else {
        const uint8_t footer[2] = {0xFF, 0xD9};
        while (remaining > written && device->footer_sent < 2) out[written++] = (char)footer[device->footer_sent++];
    }
    pthread_mutex_unlock(&device->lock);

    if (written == 0) {
        lua_pushnil(L);
        return 1;
    }
    luaL_pushresultsize(&buffer, written);
    return 1;
}

static int camera_read(lua_State *L) { return camera_read_phases(L, true); }

static int camera_read_raw(lua_State *L) { return camera_read_phases(L, false); }

static double number_field(lua_State *L, const char *name, double fallback, double low, double high,
                           const char *message)
{
    double value = fallback;
    if (lua_getfield(L, 1, name) != LUA_TNIL) {
        value = luaL_checknumber(L, -1);
        if (value < low || value > high) luaL_error(L, "%s", message);
    }
    lua_pop(L, 1);
    return value;
}

static void set_number(lua_State *L, const char *name, double value)
{
    lua_pushnumber(L, value);
    lua_setfield(L, -2, name);
}

static void set_rgb_average(lua_State *L, const char *name, double level)
{
    lua_newtable(L);
    set_number(L, "r", level);
    set_number(L, "g", level);
    set_number(L, "b", level);
    set_number(L, "average", level);
    lua_setfield(L, -2, name);
}

// The emulated scene is a steady mid-grey, so the result is the converged state of the algorithm.
static int camera_auto(lua_State *L)
{
    cframe_device *device = frame_device(L);
    pthread_mutex_lock(&device->lock);
    int asleep = device->camera_asleep;
    pthread_mutex_unlock(&device->lock);
    if (asleep) return 0;
    double shutter_limit = 16383, gain_limit = 16;
    if (lua_istable(L, 1)) {
        if (lua_getfield(L, 1, "metering") != LUA_TNIL) {
            const char *metering = luaL_checkstring(L, -1);
            if (strcmp(metering, "SPOT") && strcmp(metering, "CENTER_WEIGHTED") && strcmp(metering, "AVERAGE")) {
                luaL_error(L, "metering must be SPOT, CENTER_WEIGHTED or AVERAGE");
            }
        }
        lua_pop(L, 1);
        number_field(L, "exposure", 0.1, 0, 1, "exposure must be between 0 and 1");
        number_field(L, "exposure_speed", 0.45, 0, 1, "exposure_speed must be between 0 and 1");
        shutter_limit = number_field(L, "shutter_limit", 16383, 4, 16383, "shutter_limit must be between 4 and 16383");
        gain_limit = number_field(L, "analog_gain_limit", 16, 1, 248, "analog_gain_limit must be between 1 and 248");
        number_field(L, "white_balance_speed", 0.5, 0, 1, "white_balance_speed must be between 0 and 1");
        number_field(L, "rgb_gain_limit", 287, 0, 1023, "rgb_gain_limit must be between 0 and 1023");
    }
    lua_newtable(L);
    lua_newtable(L);
    set_rgb_average(L, "spot", 0.5);
    set_rgb_average(L, "matrix", 0.5);
    set_number(L, "center_weighted_average", 0.5);
    set_number(L, "scene", 0.5);
    lua_setfield(L, -2, "brightness");
    set_number(L, "error", 0.0);
    set_number(L, "shutter", shutter_limit < 1600 ? shutter_limit : 1600);
    set_number(L, "analog_gain", gain_limit < 1 ? gain_limit : 1);
    set_number(L, "red_gain", 121);
    set_number(L, "green_gain", 64);
    set_number(L, "blue_gain", 140);
    return 1;
}

static int camera_power_save(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (!lua_isboolean(L, 1)) luaL_error(L, "value must be true or false");
    pthread_mutex_lock(&device->lock);
    device->camera_asleep = lua_toboolean(L, 1);
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static int camera_set_shutter(lua_State *L)
{
    check_awake(L);
    lua_Integer shutter = luaL_checkinteger(L, 1);
    if (shutter < 4 || shutter > 16383) return luaL_error(L, "shutter must be between 4 and 16383");
    return 0;
}

static int camera_set_gain(lua_State *L)
{
    check_awake(L);
    lua_Integer gain = luaL_checkinteger(L, 1);
    if (gain < 1 || gain > 248) return luaL_error(L, "gain must be between 1 and 248");
    return 0;
}

static int camera_set_white_balance(lua_State *L)
{
    check_awake(L);
    for (int i = 1; i <= 3; i++) {
        lua_Integer gain = luaL_checkinteger(L, i);
        if (gain < 0 || gain > 1023) return luaL_error(L, "gains must be between 0 and 1023");
    }
    return 0;
}

static int camera_write_register(lua_State *L)
{
    check_awake(L);
    lua_Integer address = luaL_checkinteger(L, 1);
    lua_Integer value = luaL_checkinteger(L, 2);
    if (address < 0 || address > 0xFFFF) luaL_error(L, "address must be a 16 bit unsigned number");
    if (value < 0 || value > 0xFF) luaL_error(L, "value must be an 8 bit unsigned number");
    return 0;
}

static int camera_read_register(lua_State *L)
{
    check_awake(L);
    lua_Integer address = luaL_checkinteger(L, 1);
    if (address < 0 || address > 0xFFFF) luaL_error(L, "address must be a 16 bit unsigned number");
    lua_pushinteger(L, 0);
    return 1;
}

void frame_open_camera(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"capture", camera_capture},
        {"image_ready", camera_image_ready},
        {"read", camera_read},
        {"read_raw", camera_read_raw},
        {"auto", camera_auto},
        {"power_save", camera_power_save},
        {"set_shutter", camera_set_shutter},
        {"set_gain", camera_set_gain},
        {"set_white_balance", camera_set_white_balance},
        {"write_register", camera_write_register},
        {"read_register", camera_read_register},
        {NULL, NULL},
    };
    frame_register(L, "camera", functions);
}
