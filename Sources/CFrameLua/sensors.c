// frame.microphone, frame.imu and frame.time.
#include "device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: Microphone

// The PDM microphone always runs at 16 kHz into a 32768-sample FIFO; 8 kHz keeps every other
// sample, 8-bit keeps each sample's high byte. Samples arrive at the real rate of the device clock.

/// Samples the PDM has delivered since `start` (locked).
static unsigned long long produced_locked(cframe_device *device, double now)
{
    double end = device->mic_active ? now : device->mic_stopped_at;
    double elapsed = end - device->mic_started_at;
    // A hair of tolerance so a sleep of exactly 0.2 s yields 3200 samples despite float rounding.
    return elapsed > 0 ? (unsigned long long)(elapsed * 16000.0 + 1e-6) : 0;
}

void cframe_set_microphone_input(cframe_device *device, const int16_t *samples, size_t count, int from_now)
{
    int16_t *copy = malloc(count ? count * sizeof(int16_t) : 1);
    if (copy == NULL) return;
    memcpy(copy, samples, count * sizeof(int16_t));
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    free(device->mic);
    device->mic = copy;
    device->mic_count = count;
    device->mic_from_now = from_now;
    device->mic_input_at = now;
    pthread_mutex_unlock(&device->lock);
}

static int microphone_start(lua_State *L)
{
    cframe_device *device = frame_device(L);
    pthread_mutex_lock(&device->lock);
    int active = device->mic_active;
    pthread_mutex_unlock(&device->lock);
    if (active) luaL_error(L, "already started");
    lua_Integer rate = 8000, depth = 8;
    if (lua_istable(L, 1)) {
        if (lua_getfield(L, 1, "sample_rate") != LUA_TNIL) rate = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 1, "bit_depth") != LUA_TNIL) depth = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    if (rate != 8000 && rate != 16000) luaL_error(L, "sample rate must be 8000 or 16000");
    if (depth != 16 && depth != 8) luaL_error(L, "bit depth must be 8 or 16");
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    device->mic_rate = (int)rate;
    device->mic_depth = (int)depth;
    device->mic_started_at = now;
    device->mic_tail = 0;
    device->mic_active = 1;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static int microphone_stop(lua_State *L)
{
    cframe_device *device = frame_device(L);
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    if (device->mic_active) device->mic_stopped_at = now;
    device->mic_active = 0;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static int microphone_read(lua_State *L)
{
    cframe_device *device = frame_device(L);
    lua_Integer bytes = luaL_checkinteger(L, 1);
    if (bytes % 2 != 0) luaL_error(L, "bytes must be a multiple of 2");
    if (bytes < 0 || bytes > 1 << 20) luaL_error(L, "not enough memory");
    double now = frame_now(device);
    luaL_Buffer buffer;
    char *out = luaL_buffinitsize(L, &buffer, (size_t)(bytes ? bytes : 1));
    size_t written = 0;

    pthread_mutex_lock(&device->lock);
    unsigned long long head = produced_locked(device, now);
    // An overrun loses the oldest samples.
    if (head - device->mic_tail > FRAME_MIC_FIFO) device->mic_tail = head - FRAME_MIC_FIFO;
    if (device->mic_tail == head) {
        int active = device->mic_active;
        pthread_mutex_unlock(&device->lock);
        if (active) lua_pushstring(L, "");
        else lua_pushnil(L);
        return 1;
    }
    while (device->mic_tail < head && written < (size_t)bytes) {
        unsigned long long index = device->mic_tail++;
        // Which input sample the PDM hears now: from the microphone's start, or from when the
        // input began to play.
        long long at = (long long)index;
        if (device->mic_from_now) at += (long long)((device->mic_started_at - device->mic_input_at) * 16000.0 + (device->mic_started_at >= device->mic_input_at ? 0.5 : -0.5));
        int16_t sample = at >= 0 && (unsigned long long)at < device->mic_count ? device->mic[at] : 0;
        if (device->mic_rate == 8000 && index % 2 != 0) continue;
        if (device->mic_depth == 16) {
            out[written++] = (char)(sample & 0xFF);
            out[written++] = (char)((sample >> 8) & 0xFF);
        } else {
            out[written++] = (char)((sample >> 8) & 0xFF);
        }
    }
    pthread_mutex_unlock(&device->lock);
    luaL_pushresultsize(&buffer, written);
    return 1;
}

void frame_open_microphone(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"start", microphone_start},
        {"stop", microphone_stop},
        {"read", microphone_read},
        {NULL, NULL},
    };
    frame_register(L, "microphone", functions);
}

// MARK: IMU

void cframe_set_imu(cframe_device *device, const double accelerometer[3], const double compass[3])
{
    pthread_mutex_lock(&device->lock);
    memcpy(device->accelerometer, accelerometer, sizeof(device->accelerometer));
    memcpy(device->compass, compass, sizeof(device->compass));
    pthread_mutex_unlock(&device->lock);
}

static int imu_tap_callback(lua_State *L)
{
    return frame_set_callback(L, &frame_device(L)->tap_callback);
}

static void read_imu(cframe_device *device, double accelerometer[3], double compass[3])
{
    pthread_mutex_lock(&device->lock);
    memcpy(accelerometer, device->accelerometer, sizeof(device->accelerometer));
    memcpy(compass, device->compass, sizeof(device->compass));
    pthread_mutex_unlock(&device->lock);
}

static int imu_direction(lua_State *L)
{
    double accelerometer[3], compass[3];
    read_imu(frame_device(L), accelerometer, compass);
    const double degrees = 180.0 / 3.14159265358979323846;
    lua_newtable(L);
    lua_pushnumber(L, atan2(accelerometer[1], accelerometer[2]) * degrees);
    lua_setfield(L, -2, "pitch");
    lua_pushnumber(L, atan2(accelerometer[0], accelerometer[2]) * degrees);
    lua_setfield(L, -2, "roll");
    lua_pushnumber(L, 0.0);
    lua_setfield(L, -2, "heading");
    return 1;
}

static void push_vector(lua_State *L, const double v[3], const char *name)
{
    lua_newtable(L);
    lua_pushnumber(L, v[0]);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, v[1]);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, v[2]);
    lua_setfield(L, -2, "z");
    lua_setfield(L, -2, name);
}

static int imu_raw(lua_State *L)
{
    double accelerometer[3], compass[3];
    read_imu(frame_device(L), accelerometer, compass);
    lua_newtable(L);
    push_vector(L, compass, "compass");
    push_vector(L, accelerometer, "accelerometer");
    return 1;
}

void frame_open_imu(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"tap_callback", imu_tap_callback},
        {"direction", imu_direction},
        {"raw", imu_raw},
        {NULL, NULL},
    };
    frame_register(L, "imu", functions);
}

// MARK: Time

// The RTC counts milliseconds from 0 at power-on until the host sets it.
static long long utc_ms(cframe_device *device)
{
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    long long ms = device->rtc_base_ms + (long long)floor((now - device->rtc_set_at) * 1000.0);
    pthread_mutex_unlock(&device->lock);
    return ms;
}

static int time_utc(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (lua_gettop(L) == 0) {
        lua_pushnumber(L, (lua_Number)utc_ms(device) / 1000);
        return 1;
    }
    lua_Integer seconds = luaL_checkinteger(L, 1);
    double now = frame_now(device);
    pthread_mutex_lock(&device->lock);
    device->rtc_base_ms = seconds * 1000;
    device->rtc_set_at = now;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static int time_zone(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (lua_gettop(L) == 0) {
        pthread_mutex_lock(&device->lock);
        int hours = device->zone_hours, minutes = device->zone_minutes;
        pthread_mutex_unlock(&device->lock);
        lua_pushfstring(L, "%c%s%d:%s%d", hours >= 0 ? '+' : '-', abs(hours) < 10 ? "0" : "", abs(hours),
                        minutes < 10 ? "0" : "", minutes);
        return 1;
    }
    int hour = 0, minute = 0;
    if (sscanf(luaL_checkstring(L, 1), "%d:%d", &hour, &minute) != 2) luaL_error(L, "must be '+hh:mm' or '-hh:mm'");
    if (hour < -12 || hour > 14) luaL_error(L, "hour value must be between -12 and +14");
    if (minute != 0 && minute != 30 && minute != 45) luaL_error(L, "minute value must be either 00, 30, or 45");
    if ((hour == -12 || hour == 14) && minute != 0) luaL_error(L, "when hour is -12 or 14, minutes must be 0");
    pthread_mutex_lock(&device->lock);
    device->zone_hours = hour;
    device->zone_minutes = minute;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static void set_integer(lua_State *L, const char *name, lua_Integer value)
{
    lua_pushinteger(L, value);
    lua_setfield(L, -2, name);
}

static int time_date(lua_State *L)
{
    cframe_device *device = frame_device(L);
    long long seconds = lua_gettop(L) == 0 ? utc_ms(device) / 1000 : (long long)luaL_checkinteger(L, 1);
    pthread_mutex_lock(&device->lock);
    // As in the firmware, the zone's minutes are added even for a negative hour.
    seconds += device->zone_minutes * 60 + device->zone_hours * 3600;
    pthread_mutex_unlock(&device->lock);
    time_t stamp = (time_t)seconds;
    struct tm date;
    gmtime_r(&stamp, &date);
    lua_newtable(L);
    set_integer(L, "second", date.tm_sec);
    set_integer(L, "minute", date.tm_min);
    set_integer(L, "hour", date.tm_hour);
    set_integer(L, "day", date.tm_mday);
    set_integer(L, "month", date.tm_mon + 1);
    set_integer(L, "year", date.tm_year + 1900);
    set_integer(L, "weekday", date.tm_wday);
    set_integer(L, "day of year", date.tm_yday);
    lua_pushboolean(L, date.tm_isdst > 0);
    lua_setfield(L, -2, "is daylight saving");
    return 1;
}

void frame_open_time(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"utc", time_utc},
        {"zone", time_zone},
        {"date", time_date},
        {NULL, NULL},
    };
    frame_register(L, "time", functions);
}
