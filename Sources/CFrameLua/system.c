// frame.update, sleep, stay_awake, battery_level, fpga_read and fpga_write, and frame.bluetooth.
#include "device.h"

#include <stdlib.h>
#include <string.h>

void frame_register(lua_State *L, const char *name, const luaL_Reg *functions)
{
    lua_getglobal(L, "frame");
    lua_newtable(L);
    luaL_setfuncs(L, functions, 0);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

int frame_set_callback(lua_State *L, int *slot)
{
    cframe_device *device = frame_device(L);
    int reference = LUA_NOREF;
    if (lua_isfunction(L, 1)) {
        lua_settop(L, 1);
        reference = luaL_ref(L, LUA_REGISTRYINDEX);
    } else if (!lua_isnil(L, 1)) {
        return luaL_error(L, "expected nil or function");
    }
    pthread_mutex_lock(&device->lock);
    *slot = reference;
    pthread_mutex_unlock(&device->lock);
    return 0;
}

static int frame_update(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (luaL_dostring(L, "frame.display.text('Frame Update', 200, 140);frame.display.show()") != LUA_OK) {
        luaL_error(L, "%s", lua_tostring(L, -1));
    }
    // GPREGRET = 0xB1 and a reset: the link drops and the DFU bootloader starts.
    pthread_mutex_lock(&device->lock);
    if (!device->stop) {
        device->stop = 1;
        device->stop_reason = CFRAME_STOP_BOOTLOADER;
    }
    device->connected = 0;
    atomic_store(&device->attention, 1);
    pthread_mutex_unlock(&device->lock);
    frame_check_stop(L);
    return 0;
}

static int frame_stay_awake(lua_State *L)
{
    cframe_device *device = frame_device(L);
    if (lua_gettop(L) > 1) return luaL_error(L, "expected 0 or 1 arguments");
    if (lua_gettop(L) == 1) {
        luaL_checktype(L, 1, LUA_TBOOLEAN);
        pthread_mutex_lock(&device->lock);
        device->stay_awake = lua_toboolean(L, 1);
        pthread_mutex_unlock(&device->lock);
        return 0;
    }
    pthread_mutex_lock(&device->lock);
    int awake = device->stay_awake;
    pthread_mutex_unlock(&device->lock);
    lua_pushboolean(L, awake);
    return 1;
}

static int frame_battery_level(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)frame_device(L)->battery_level);
    return 1;
}

static lua_Integer check_fpga_address(lua_State *L)
{
    lua_Integer address = luaL_checkinteger(L, 1);
    if (address < 0x00 || address > 0xFF) luaL_error(L, "address must be between 0x00 and 0xFF");
    return address;
}

static int frame_fpga_read(lua_State *L)
{
    lua_Integer address = check_fpga_address(L);
    lua_Integer length = luaL_checkinteger(L, 2);
    if (length < 0 || length > 65536) luaL_error(L, "not enough memory");
    luaL_Buffer buffer;
    char *bytes = luaL_buffinitsize(L, &buffer, (size_t)length);
    memset(bytes, 0, (size_t)length);
    // The FPGA's chip ID register reads 0x81; metering (0x25) reads a mid-grey scene.
    if (address == 0xDB && length > 0) bytes[0] = (char)0x81;
    if (address == 0x25) {
        for (lua_Integer i = 0; i < length; i++) bytes[i] = (char)0x80;
    }
    luaL_pushresultsize(&buffer, (size_t)length);
    return 1;
}

static int frame_fpga_write(lua_State *L)
{
    check_fpga_address(L);
    luaL_checkstring(L, 2);
    return 0;
}

void frame_open_system(lua_State *L)
{
    lua_getglobal(L, "frame");
    const luaL_Reg functions[] = {
        {"update", frame_update},
        {"sleep", frame_lua_sleep},
        {"stay_awake", frame_stay_awake},
        {"battery_level", frame_battery_level},
        {"fpga_read", frame_fpga_read},
        {"fpga_write", frame_fpga_write},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
    lua_pop(L, 1);
}

// MARK: frame.led (Frame Lite's RGB LED; accepted and range-checked on every model, as the firmware does)

static int led_set_color(lua_State *L)
{
    lua_Integer red = luaL_checkinteger(L, 1);
    lua_Integer green = luaL_checkinteger(L, 2);
    lua_Integer blue = luaL_checkinteger(L, 3);
    if (red < 0 || red > 100 || green < 0 || green > 100 || blue < 0 || blue > 100) {
        luaL_error(L, "led color must be between 0 and 100");
    }
    return 0;
}

void frame_open_led(lua_State *L)
{
    const luaL_Reg functions[] = {{"set_color", led_set_color}, {NULL, NULL}};
    frame_register(L, "led", functions);
}

// MARK: frame.bluetooth

static int bluetooth_is_connected(lua_State *L)
{
    lua_pushboolean(L, cframe_is_connected(frame_device(L)));
    return 1;
}

static int bluetooth_address(lua_State *L)
{
    lua_pushstring(L, frame_device(L)->address);
    return 1;
}

static int negotiated(cframe_device *device)
{
    pthread_mutex_lock(&device->lock);
    int value = device->negotiated;
    pthread_mutex_unlock(&device->lock);
    return value;
}

static int bluetooth_max_length(lua_State *L)
{
    // One byte goes to the 0x01 data prefix.
    lua_pushinteger(L, negotiated(frame_device(L)) - 1);
    return 1;
}

static int bluetooth_send(lua_State *L)
{
    cframe_device *device = frame_device(L);
    size_t length;
    const char *string = luaL_checklstring(L, 1, &length);
    if ((long long)length + 1 > negotiated(device)) {
        return luaL_error(L, "string length is greater than max_length()");
    }
    uint8_t packet[FRAME_MAX_MTU];
    packet[0] = 0x01;
    memcpy(packet + 1, string, length);
    if (!frame_radio_send(device, packet, length + 1)) return luaL_error(L, "bluetooth is busy");
    return 0;
}

static int bluetooth_receive_callback(lua_State *L)
{
    return frame_set_callback(L, &frame_device(L)->data_callback);
}

void frame_open_bluetooth(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"is_connected", bluetooth_is_connected},
        {"address", bluetooth_address},
        {"max_length", bluetooth_max_length},
        {"send", bluetooth_send},
        {"receive_callback", bluetooth_receive_callback},
        {NULL, NULL},
    };
    frame_register(L, "bluetooth", functions);
}
