// Internal state of the virtual Frame, shared by the shim's C files.
#ifndef CFRAMELUA_DEVICE_H
#define CFRAMELUA_DEVICE_H

#include "CFrameLua.h"
#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/// BLE_PREFERRED_MAX_MTU in the firmware.
#define FRAME_MAX_MTU 247
/// The firmware's JFIF header length (what `read_raw` leaves out).
#define FRAME_JPEG_HEADER 623
/// The microphone FIFO, in 16 kHz samples.
#define FRAME_MIC_FIFO 32768

/// What the single hook slot holds (a newer event replaces an older one, as in the firmware).
enum hook_kind { HOOK_NONE = 0, HOOK_DATA, HOOK_BREAK, HOOK_TAP, HOOK_BLOCK };

/// The firmware's decompression output buffer.
#define FRAME_BLOCK_BUFFER 4096

struct cframe_device {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    cframe_callbacks callbacks;
    char *flash_path, *firmware_version, *git_tag, *hardware_version, *address;
    int paired, virtual_clock;
    double notify_interval, capture_latency, battery_level;

    /// The running state (NULL between boots); set and cleared under `lock`.
    lua_State *L;
    int boots;

    /// Set whenever the VM hook has something to do (a pending event or a stop).
    atomic_int attention;
    int stop;
    int stop_reason;
    /// How deep the VM thread is in hook callbacks (Lua runs no hooks there); VM thread only.
    int hook_depth;

    // Radio
    int connected;
    /// ble_negotiated_mtu: min(247, MTU) - 3, 0 before an MTU exchange.
    int negotiated;
    double slot_busy_until;

    // REPL buffer (NUL-terminated) and the single hook slot
    char repl[FRAME_MAX_MTU];
    int hook;
    uint8_t data[FRAME_MAX_MTU];
    size_t data_length;
    int data_callback;
    int tap_callback;
    /// frame.compression: the registered function and the last decompressed block.
    int block_callback;
    uint8_t block[FRAME_BLOCK_BUFFER];
    size_t block_length;

    // Clock: `monotonic_base` is the real monotonic time at power-on; `virtual_now` the virtual clock.
    double monotonic_base;
    double virtual_now;
    long long rtc_base_ms;
    double rtc_set_at;
    int zone_hours, zone_minutes;
    int stay_awake;

    // Camera
    uint8_t *jpeg;
    size_t jpeg_length;
    int camera_asleep;
    int captures, capture_resolution, capture_pan, capture_quality;
    int captured;
    double captured_at;
    int data_armed;
    size_t header_sent, data_remaining, data_sent, footer_sent;

    // Microphone
    int16_t *mic;
    size_t mic_count;
    /// The input plays from this moment on the device clock, whatever starts and stops the
    /// microphone (set with `from_now`); otherwise each start hears it from its beginning.
    int mic_from_now;
    double mic_input_at;
    int mic_active;
    double mic_started_at, mic_stopped_at;
    unsigned long long mic_tail;
    int mic_rate, mic_depth;

    // IMU
    double accelerometer[3], compass[3];
};

/// The device a Lua state belongs to (kept in the state's extra space).
cframe_device *frame_device(lua_State *L);
/// Real monotonic seconds.
double frame_monotonic(void);
/// Device clock seconds since power-on.
double frame_now(cframe_device *device);
/// Sends one notification; false when not connected, too long for the MTU or the slot is busy.
bool frame_radio_send(cframe_device *device, const uint8_t *bytes, size_t length);
/// Reports a display operation to the host.
void frame_display_report(cframe_device *device, const cframe_display_op *op);
/// Puts an event in the single hook slot (replacing a pending one); `lock` must be held.
void frame_raise_hook_locked(cframe_device *device, int kind);
/// Raises the stop error if the device is powering off.
void frame_check_stop(lua_State *L);
/// Waits up to `seconds` of real time, returning early when the host writes or taps.
void frame_wait(cframe_device *device, double seconds);
/// frame.sleep(): the firmware's sleep, which keeps running small Lua chunks so hooks fire.
int frame_lua_sleep(lua_State *L);

void frame_open_system(lua_State *L);
void frame_open_bluetooth(lua_State *L);
void frame_open_display(lua_State *L);
void frame_open_camera(lua_State *L);
void frame_open_microphone(lua_State *L);
void frame_open_imu(lua_State *L);
void frame_open_time(lua_State *L);
void frame_open_file(lua_State *L, bool reformat);
void frame_open_compression(lua_State *L);
void frame_open_led(lua_State *L);

/// Sets `frame.<name>` to a new table of `functions` (the `frame` table is global).
void frame_register(lua_State *L, const char *name, const luaL_Reg *functions);
/// Registers argument 1 (a function, or nil for none) as the callback in `*slot`, one of the
/// device's callback fields; a Lua error for anything else.
int frame_set_callback(lua_State *L, int *slot);

#endif
