#ifndef CFRAMELUA_H
#define CFRAMELUA_H

// The virtual Frame's firmware on Lua 5.4: the Lua state with the firmware's libraries, `require`
// and `print`, the BLE write routing (data / break / reset / Lua), the boot and REPL loop, and the
// frame.* API with emulated peripherals. Swift drives it (FrameEmulator) through these functions and
// hears from it only through the plain C callbacks below, which never raise Lua errors: every Lua
// error is raised by this C code itself, so no longjmp ever crosses a Swift frame.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One virtual Frame (its Lua VM, radio, clock and peripherals).
typedef struct cframe_device cframe_device;

/// What a display call did, handed to `cframe_callbacks.display`.
typedef enum {
    CFRAME_DISPLAY_TEXT = 1,
    CFRAME_DISPLAY_BITMAP = 2,
    CFRAME_DISPLAY_SHOW = 3,
    CFRAME_DISPLAY_ASSIGN_COLOR = 4,
    CFRAME_DISPLAY_POWER_SAVE = 5,
    CFRAME_DISPLAY_BRIGHTNESS = 6,
    CFRAME_DISPLAY_WRITE_REGISTER = 7,
} cframe_display_kind;

/// A display operation. Pointers are valid only during the callback.
typedef struct {
    int kind;
    /// TEXT: the UTF-8 string; BITMAP: the packed pixel data.
    const char *bytes;
    size_t length;
    /// TEXT/BITMAP: 1-based position as the app passed it.
    long long x, y;
    /// BITMAP: width in pixels and total colours (2, 4 or 16).
    long long width, total_colors;
    /// TEXT/BITMAP: palette offset; ASSIGN_COLOR: the palette index 0..15.
    long long palette;
    /// TEXT: character spacing.
    long long spacing;
    /// ASSIGN_COLOR: the YCbCr entry (Y 0..15, Cb/Cr 0..7); the RGB given, or -1 when set as YCbCr.
    int ycbcr[3];
    int rgb[3];
    /// POWER_SAVE: 1/0; BRIGHTNESS: level -2..2; WRITE_REGISTER: the value (address in `x`).
    long long value;
} cframe_display_op;

/// Why `cframe_run` returned.
typedef enum {
    CFRAME_STOP_POWER_OFF = 0,
    CFRAME_STOP_DEEP_SLEEP = 1,
    CFRAME_STOP_BOOTLOADER = 2,
} cframe_stop_reason;

/// `cframe_write` results.
typedef enum {
    CFRAME_WRITE_OK = 0,
    CFRAME_WRITE_NOT_CONNECTED = -1,
    CFRAME_WRITE_TOO_LONG = -2,
    CFRAME_WRITE_EMPTY = -3,
} cframe_write_result;

/// Plain C callbacks into the host program. They must return promptly and must not call back into
/// this API on the VM thread except the read-only getters.
typedef struct {
    void *context;
    /// A notification reached the host (data notifications keep their 0x01 prefix).
    void (*notify)(void *context, const uint8_t *bytes, size_t length);
    /// A display operation ran.
    void (*display)(void *context, const cframe_display_op *op);
    /// A Lua state was created and its libraries opened (before main.lua runs); `boots` counts them.
    void (*booted)(void *context, int boots);
    /// Boot number `boots` reached the REPL loop (main.lua returned or failed).
    void (*idle)(void *context, int boots);
} cframe_callbacks;

/// Fixed facts about the device.
typedef struct {
    /// The emulated flash (littlefs) as a directory.
    const char *flash_path;
    const char *firmware_version;
    const char *git_tag;
    const char *hardware_version;
    /// "AA:BB:CC:DD:EE:FF".
    const char *address;
    /// Unpaired boots reformat the flash, as the firmware does.
    int paired;
    /// Seconds a notification occupies the radio's single queue slot (0 = frees at once).
    double notify_interval;
    /// 1 = virtual clock (time passes only while Lua sleeps), 0 = real time.
    int virtual_clock;
    /// Seconds from `camera.capture` until `image_ready()`.
    double capture_latency;
    double battery_level;
} cframe_config;

/// Creates a powered-off device; strings are copied.
cframe_device *cframe_create(const cframe_config *config, cframe_callbacks callbacks);
/// Replaces `frame.FIRMWARE_VERSION` (a firmware update); Lua states created from now on see it.
void cframe_set_firmware_version(cframe_device *device, const char *version);
/// Frees it; `cframe_run` must have returned.
void cframe_destroy(cframe_device *device);

/// The VM thread's body: boots (cold: the clock and peripherals start over), runs main.lua and the
/// REPL loop, reboots on 0x04, and returns when powered off, deep-asleep or in the bootloader.
int cframe_run(cframe_device *device, int cold);
/// Asks `cframe_run` to return (interrupting running Lua).
void cframe_power_off(cframe_device *device);

/// A BLE connection with the given ATT MTU (0 = no MTU exchange happened).
void cframe_connect(cframe_device *device, int mtu);
void cframe_disconnect(cframe_device *device);
int cframe_is_connected(cframe_device *device);
/// The largest write the host may make (ATT payload).
int cframe_max_write(cframe_device *device);
/// A host write to the 7a230002 characteristic, routed by its first byte.
int cframe_write(cframe_device *device, const uint8_t *bytes, size_t length);

/// A tap on the IMU (single hook slot, like data).
void cframe_tap(cframe_device *device);
/// The JPEG `camera.read` serves (its first 623 bytes stand for the firmware's JFIF header).
void cframe_set_camera_image(cframe_device *device, const uint8_t *bytes, size_t length);
/// The microphone's signal as 16 kHz signed samples (the PDM rate); silence after its end. With
/// `from_now`, it plays from this moment on, and the microphone hears whatever part is playing
/// while it runs (the wearer's surroundings talk on); otherwise each start of the microphone
/// hears it from its beginning.
void cframe_set_microphone_input(cframe_device *device, const int16_t *samples, size_t count, int from_now);
/// Raw IMU readings (accelerometer and compass x, y, z).
void cframe_set_imu(cframe_device *device, const double accelerometer[3], const double compass[3]);

/// What the peripherals are doing, for host-side tests.
typedef struct {
    /// Captures since power-on and the last one's settings (quality 0 = VERY_LOW … 4 = VERY_HIGH).
    int captures;
    int resolution, pan, quality;
    int camera_asleep;
    /// The microphone is sampling, at this rate and depth.
    int microphone_running, sample_rate, bit_depth;
    /// How far the app has read the microphone's input since `frame.microphone.start`, in 16 kHz samples.
    unsigned long long microphone_read;
    int stay_awake;
} cframe_peripherals;

/// A snapshot of the peripherals.
cframe_peripherals cframe_peripheral_state(cframe_device *device);

/// Seconds the device clock has run since power-on (real or virtual).
double cframe_clock(cframe_device *device);
/// The Lua library version this was built against.
int cframelua_version(void);

#ifdef __cplusplus
}
#endif

#endif
