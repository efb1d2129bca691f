// The virtual Frame's core: device lifetime, clock, radio, write routing, the VM hook that
// delivers data, taps and breaks, and the boot + REPL loop of the firmware's luaport.c.
#include "device.h"

#include <lualib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *boot_chunk = "frame.stay_awake(false); require('main')";
static const char *stop_message = "device powered off";

int cframelua_version(void) { return LUA_VERSION_NUM; }

static char *copy_string(const char *s) { return strdup(s ? s : ""); }

double frame_monotonic(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

cframe_device *frame_device(lua_State *L) { return *(cframe_device **)lua_getextraspace(L); }

cframe_device *cframe_create(const cframe_config *config, cframe_callbacks callbacks)
{
    cframe_device *device = calloc(1, sizeof(cframe_device));
    if (device == NULL) return NULL;
    pthread_mutex_init(&device->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&device->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    device->callbacks = callbacks;
    device->flash_path = copy_string(config->flash_path);
    device->firmware_version = copy_string(config->firmware_version);
    device->git_tag = copy_string(config->git_tag);
    device->hardware_version = copy_string(config->hardware_version);
    device->address = copy_string(config->address);
    device->paired = config->paired;
    device->virtual_clock = config->virtual_clock;
    device->notify_interval = config->notify_interval;
    device->capture_latency = config->capture_latency;
    device->battery_level = config->battery_level;
    device->accelerometer[2] = 4096;
    device->monotonic_base = frame_monotonic();
    return device;
}

void cframe_set_firmware_version(cframe_device *device, const char *version)
{
    char *copy = copy_string(version);
    pthread_mutex_lock(&device->lock);
    char *old = device->firmware_version;
    device->firmware_version = copy;
    pthread_mutex_unlock(&device->lock);
    free(old);
}

void cframe_destroy(cframe_device *device)
{
    if (device == NULL) return;
    free(device->flash_path);
    free(device->firmware_version);
    free(device->git_tag);
    free(device->hardware_version);
    free(device->address);
    free(device->jpeg);
    free(device->mic);
    pthread_cond_destroy(&device->wake);
    pthread_mutex_destroy(&device->lock);
    free(device);
}

// MARK: Clock

static double now_locked(cframe_device *device)
{
    if (device->virtual_clock) return device->virtual_now;
    return frame_monotonic() - device->monotonic_base;
}

double frame_now(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    double now = now_locked(device);
    pthread_mutex_unlock(&device->lock);
    return now;
}

double cframe_clock(cframe_device *device) { return frame_now(device); }

void frame_wait(cframe_device *device, double seconds)
{
    if (seconds <= 0) return;
    pthread_mutex_lock(&device->lock);
    // A pending event ends the wait so its hook can run, unless hooks are off (inside a callback);
    // a pending REPL chunk does not: the REPL loop looks at it between its 10 ms idle sleeps.
    bool pending = device->stop || (device->hook != HOOK_NONE && device->hook_depth == 0);
    if (!pending) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        double whole;
        double fraction = modf(seconds, &whole);
        deadline.tv_sec += (time_t)whole;
        deadline.tv_nsec += (long)(fraction * 1e9);
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&device->wake, &device->lock, &deadline);
    }
    pthread_mutex_unlock(&device->lock);
}

// MARK: Radio

bool frame_radio_send(cframe_device *device, const uint8_t *bytes, size_t length)
{
    pthread_mutex_lock(&device->lock);
    double now = frame_monotonic();
    // Without an MTU exchange the link keeps ATT's default MTU of 23 (20-byte notifications).
    int limit = device->negotiated > 0 ? device->negotiated : 20;
    bool ok = device->connected && (int)length <= limit && now >= device->slot_busy_until;
    if (ok) device->slot_busy_until = now + device->notify_interval;
    pthread_mutex_unlock(&device->lock);
    // Only the VM thread sends, so notifications reach the host in order.
    if (ok && device->callbacks.notify) device->callbacks.notify(device->callbacks.context, bytes, length);
    return ok;
}

void frame_display_report(cframe_device *device, const cframe_display_op *op)
{
    if (device->callbacks.display) device->callbacks.display(device->callbacks.context, op);
}

void cframe_connect(cframe_device *device, int mtu)
{
    pthread_mutex_lock(&device->lock);
    device->connected = 1;
    if (mtu > 0) device->negotiated = (mtu < FRAME_MAX_MTU ? mtu : FRAME_MAX_MTU) - 3;
    else device->negotiated = 0;
    pthread_mutex_unlock(&device->lock);
}

void cframe_disconnect(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    device->connected = 0;
    pthread_mutex_unlock(&device->lock);
}

int cframe_is_connected(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    int connected = device->connected;
    pthread_mutex_unlock(&device->lock);
    return connected;
}

static int max_write_locked(cframe_device *device)
{
    // Without an MTU exchange the ATT default (23) applies; the characteristic holds 244 bytes.
    return device->negotiated > 0 ? device->negotiated : 20;
}

int cframe_max_write(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    int max = max_write_locked(device);
    pthread_mutex_unlock(&device->lock);
    return max;
}

void frame_raise_hook_locked(cframe_device *device, int kind)
{
    device->hook = kind;
    atomic_store(&device->attention, 1);
    pthread_cond_broadcast(&device->wake);
}

int cframe_write(cframe_device *device, const uint8_t *bytes, size_t length)
{
    pthread_mutex_lock(&device->lock);
    int result = CFRAME_WRITE_OK;
    if (!device->connected) result = CFRAME_WRITE_NOT_CONNECTED;
    else if (length == 0) result = CFRAME_WRITE_EMPTY;
    else if ((int)length > max_write_locked(device)) result = CFRAME_WRITE_TOO_LONG;
    else if (bytes[0] == 0x01) {
        // One data buffer: a later write replaces one whose hook has not run yet. Between boots
        // (no Lua state) nothing listens and the write is lost.
        if (device->L != NULL && device->data_callback != LUA_NOREF) {
            memcpy(device->data, bytes + 1, length - 1);
            device->data_length = length - 1;
            frame_raise_hook_locked(device, HOOK_DATA);
        }
    } else if (bytes[0] == 0x03) {
        if (device->L != NULL) frame_raise_hook_locked(device, HOOK_BREAK);
    } else {
        // Lua source or 0x04 reset: one REPL buffer, copied up to the first NUL (the firmware strcpy's it).
        size_t n = strnlen((const char *)bytes, length);
        if (n >= FRAME_MAX_MTU) n = FRAME_MAX_MTU - 1;
        memcpy(device->repl, bytes, n);
        device->repl[n] = 0;
        pthread_cond_broadcast(&device->wake);
    }
    pthread_mutex_unlock(&device->lock);
    return result;
}

void cframe_tap(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    if (device->L != NULL) frame_raise_hook_locked(device, HOOK_TAP);
    pthread_mutex_unlock(&device->lock);
}

void cframe_power_off(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    if (!device->stop) {
        device->stop = 1;
        device->stop_reason = CFRAME_STOP_POWER_OFF;
    }
    atomic_store(&device->attention, 1);
    pthread_cond_broadcast(&device->wake);
    pthread_mutex_unlock(&device->lock);
}

void frame_check_stop(lua_State *L)
{
    cframe_device *device = frame_device(L);
    pthread_mutex_lock(&device->lock);
    int stop = device->stop;
    pthread_mutex_unlock(&device->lock);
    if (stop) luaL_error(L, "%s", stop_message);
}

// MARK: The VM hook

// The firmware installs a one-shot hook from its interrupts. Installing hooks from another thread is
// not safe on a multi-core host, so a count hook stays installed and looks at the single slot on
// every instruction: delivery is still "on the next VM instruction", and a newer event still
// replaces a pending one. Hooks are off while a hook runs (Lua's rule), so callbacks never nest.
static void vm_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    cframe_device *device = frame_device(L);
    if (!atomic_load_explicit(&device->attention, memory_order_relaxed)) return;

    uint8_t data[FRAME_BLOCK_BUFFER];
    size_t data_length = 0;
    int callback = LUA_NOREF;
    pthread_mutex_lock(&device->lock);
    int stop = device->stop;
    int kind = device->hook;
    device->hook = HOOK_NONE;
    if (kind == HOOK_DATA) {
        data_length = device->data_length;
        memcpy(data, device->data, data_length);
        callback = device->data_callback;
    } else if (kind == HOOK_TAP) {
        callback = device->tap_callback;
    } else if (kind == HOOK_BLOCK) {
        data_length = device->block_length;
        memcpy(data, device->block, data_length);
        callback = device->block_callback;
    }
    atomic_store(&device->attention, stop);
    pthread_mutex_unlock(&device->lock);

    if (stop) luaL_error(L, "%s", stop_message);
    switch (kind) {
    case HOOK_BREAK:
        luaL_error(L, "break signal");
        break;
    case HOOK_DATA:
    case HOOK_TAP:
    case HOOK_BLOCK:
        if (callback == LUA_NOREF) break;
        lua_rawgeti(L, LUA_REGISTRYINDEX, callback);
        if (kind != HOOK_TAP) lua_pushlstring(L, (const char *)data, data_length);
        device->hook_depth++;
        int status = lua_pcall(L, kind == HOOK_TAP ? 0 : 1, 0, 0);
        device->hook_depth--;
        if (status != LUA_OK) {
            luaL_error(L, "%s", lua_tostring(L, -1));
        }
        break;
    default:
        break;
    }
}

// MARK: print

// The firmware's print: lua_writestring is a BLE send and lua_writeline does nothing, so every
// argument is its own notification with a "\t" notification between them; failures are ignored.
static int frame_print(lua_State *L)
{
    cframe_device *device = frame_device(L);
    int count = lua_gettop(L);
    for (int i = 1; i <= count; i++) {
        size_t length;
        const char *text = luaL_tolstring(L, i, &length);
        if (i > 1) frame_radio_send(device, (const uint8_t *)"\t", 1);
        frame_radio_send(device, (const uint8_t *)text, length);
        lua_pop(L, 1);
    }
    return 0;
}

// MARK: sleep

int frame_lua_sleep(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (lua_gettop(L) == 0) {
        pthread_mutex_lock(&device->lock);
        int awake = device->stay_awake;
        if (!awake && !device->stop) {
            device->stop = 1;
            device->stop_reason = CFRAME_STOP_DEEP_SLEEP;
            atomic_store(&device->attention, 1);
        }
        pthread_mutex_unlock(&device->lock);
        if (awake) {
            frame_wait(device, 0.1);
            return 0;
        }
        frame_check_stop(L);
        return 0;
    }
    lua_Number seconds = luaL_checknumber(L, 1);
    lua_settop(L, 0);
    double until = frame_now(device) + seconds;
    // A virtual sleep moves the clock in steps, waiting briefly in real time for host events.
    double step = seconds / 50 > 0.1 ? seconds / 50 : 0.1;
    while (true) {
        // Like the firmware, run a Lua chunk on each pass so pending hooks (data, tap, break) fire.
        if (luaL_dostring(L, "return frame.time.utc()") != LUA_OK) {
            luaL_error(L, "%s", lua_tostring(L, -1));
        }
        lua_settop(L, 0);
        frame_check_stop(L);
        double now = frame_now(device);
        if (now >= until) break;
        if (device->virtual_clock) {
            frame_wait(device, 0.005);
            pthread_mutex_lock(&device->lock);
            double next = device->virtual_now + step;
            device->virtual_now = next < until ? next : until;
            pthread_mutex_unlock(&device->lock);
        } else {
            double remaining = until - now;
            frame_wait(device, remaining < 0.01 ? remaining : 0.01);
        }
    }
    return 0;
}

// MARK: Boot and REPL

static void send_error(cframe_device *device, lua_State *L)
{
    pthread_mutex_lock(&device->lock);
    int stop = device->stop;
    pthread_mutex_unlock(&device->lock);
    if (stop) {
        // Powering off or falling asleep interrupts the running code; nothing is said.
        lua_pop(L, 1);
        return;
    }
    size_t length;
    const char *message = lua_tolstring(L, -1, &length);
    if (message != NULL) frame_radio_send(device, (const uint8_t *)message, length);
    lua_pop(L, 1);
}

static void show_pairing_screen(lua_State *L, int paired)
{
    const char *chunk = paired
        ? "frame.display.text('Frame is Paired', 185, 140);"
          "frame.display.text('Frame '..frame.bluetooth.address():sub(-2, -1), 245, 210, { color = 'ORANGE' });"
          "frame.display.show()"
        : "frame.display.text('Ready to Pair', 200, 140);"
          "frame.display.text('Frame '..frame.bluetooth.address():sub(-2, -1), 245, 210, { color = 'GREEN' });"
          "frame.display.show()";
    if (luaL_dostring(L, chunk) != LUA_OK) lua_pop(L, 1);
}

static lua_State *new_state(cframe_device *device)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) return NULL;
    *(cframe_device **)lua_getextraspace(L) = device;
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    luaL_requiref(L, LUA_DBLIBNAME, luaopen_debug, 1);
    lua_settop(L, 0);
    lua_pushcfunction(L, frame_print);
    lua_setglobal(L, "print");

    lua_newtable(L);
    lua_pushstring(L, device->hardware_version);
    lua_setfield(L, -2, "HARDWARE_VERSION");
    // Copied under the lock (an update may replace it); pushed without it, as Lua may raise.
    pthread_mutex_lock(&device->lock);
    char *firmware = copy_string(device->firmware_version);
    pthread_mutex_unlock(&device->lock);
    lua_pushstring(L, firmware ? firmware : "");
    free(firmware);
    lua_setfield(L, -2, "FIRMWARE_VERSION");
    lua_pushstring(L, device->git_tag);
    lua_setfield(L, -2, "GIT_TAG");
    lua_setglobal(L, "frame");
    frame_open_system(L);
    frame_open_bluetooth(L);
    frame_open_display(L);
    frame_open_camera(L);
    frame_open_microphone(L);
    frame_open_imu(L);
    frame_open_time(L);
    frame_open_led(L);
    frame_open_compression(L);
    frame_open_file(L, !device->paired);
    lua_settop(L, 0);
    lua_sethook(L, vm_hook, LUA_MASKCOUNT, 1);
    return L;
}

static void cold_start(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    device->monotonic_base = frame_monotonic();
    device->virtual_now = 0;
    device->rtc_base_ms = 0;
    device->rtc_set_at = 0;
    device->zone_hours = 0;
    device->zone_minutes = 0;
    device->stay_awake = 0;
    device->camera_asleep = 0;
    device->captured = 0;
    device->captures = 0;
    device->mic_active = 0;
    device->mic_stopped_at = device->mic_started_at = 0;
    device->mic_tail = 0;
    device->slot_busy_until = 0;
    pthread_mutex_unlock(&device->lock);
}

int cframe_run(cframe_device *device, int cold)
{
    pthread_mutex_lock(&device->lock);
    device->stop = 0;
    device->hook_depth = 0;
    device->hook = HOOK_NONE;
    device->repl[0] = 0;
    atomic_store(&device->attention, 0);
    pthread_mutex_unlock(&device->lock);
    if (cold) cold_start(device);

    while (true) {
        lua_State *L = new_state(device);
        if (L == NULL) return CFRAME_STOP_POWER_OFF;
        pthread_mutex_lock(&device->lock);
        device->L = L;
        device->data_callback = LUA_NOREF;
        device->tap_callback = LUA_NOREF;
        device->block_callback = LUA_NOREF;
        int boots = ++device->boots;
        pthread_mutex_unlock(&device->lock);
        if (device->callbacks.booted) device->callbacks.booted(device->callbacks.context, boots);

        if (luaL_dostring(L, boot_chunk) != LUA_OK) send_error(device, L);
        lua_settop(L, 0);
        show_pairing_screen(L, device->paired);
        if (device->callbacks.idle) device->callbacks.idle(device->callbacks.context, boots);

        bool reset = false;
        while (true) {
            char chunk[FRAME_MAX_MTU];
            pthread_mutex_lock(&device->lock);
            int stop = device->stop;
            if (device->repl[0] == 0x04) {
                device->repl[0] = 0;
                reset = true;
            }
            memcpy(chunk, device->repl, sizeof(chunk));
            device->repl[0] = 0;
            pthread_mutex_unlock(&device->lock);
            if (stop || reset) break;

            if (chunk[0] != 0) {
                if (luaL_dostring(L, chunk) != LUA_OK) send_error(device, L);
            } else if (luaL_dostring(L, "frame.sleep(0.01)") != LUA_OK) {
                lua_pop(L, 1);
            }
            lua_settop(L, 0);
        }

        pthread_mutex_lock(&device->lock);
        device->L = NULL;
        device->hook = HOOK_NONE;
        int stop = device->stop;
        int reason = device->stop_reason;
        pthread_mutex_unlock(&device->lock);
        lua_close(L);
        if (stop) return reason;
    }
}
