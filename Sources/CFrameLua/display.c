// frame.display: argument checks as the firmware makes them; each operation is reported to the host.
#include "device.h"

#include <math.h>
#include <string.h>

/// The 16 palette names, in palette order.
static const char *const palette_names[16] = {
    "VOID", "WHITE", "GREY", "RED", "PINK", "DARKBROWN", "BROWN", "ORANGE",
    "YELLOW", "DARKGREEN", "GREEN", "LIGHTGREEN", "NIGHTBLUE", "SEABLUE", "SKYBLUE", "CLOUDBLUE",
};

/// The system font's glyphs are 48 px high (the private-use emoji 70); positions are checked only
/// for glyphs that fit on the 640×400 screen, as the firmware draws (and checks) glyph by glyph.
#define GLYPH_HEIGHT 48

static int palette_index(lua_State *L, int index)
{
    const char *name = luaL_checkstring(L, index);
    for (int i = 0; i < 16; i++) {
        if (strcmp(name, palette_names[i]) == 0) return i;
    }
    luaL_error(L, "Invalid color name");
    return 0;
}

static void check_sprite(lua_State *L, lua_Integer x, lua_Integer y, lua_Integer width, lua_Integer colors,
                         lua_Integer palette_offset)
{
    if (x < 1 || x > 640) luaL_error(L, "x_position must be between 1 and 640 pixels");
    if (y < 1 || y > 400) luaL_error(L, "y_position must be between 1 and 400 pixels");
    if (width < 1 || width > 640) luaL_error(L, "width must be between 1 and 640 pixels");
    if (colors != 2 && colors != 4 && colors != 16) luaL_error(L, "total_colors must be either 2, 4 or 16");
    if (palette_offset < 0 || palette_offset > 15) luaL_error(L, "palette_offset must be between 0 and 15");
}

static int display_assign_color(lua_State *L)
{
    int index = palette_index(L, 1);
    lua_Integer red = luaL_checkinteger(L, 2);
    lua_Integer green = luaL_checkinteger(L, 3);
    lua_Integer blue = luaL_checkinteger(L, 4);
    if (red < 0 || red > 255) luaL_error(L, "red component must be between 0 and 255");
    if (green < 0 || green > 255) luaL_error(L, "green component must be between 0 and 255");
    if (blue < 0 || blue > 255) luaL_error(L, "blue component must be between 0 and 255");
    // BT.601 full-range conversion, then 4 bits of Y and 3 each of Cb and Cr.
    double y = floor(0.299 * red + 0.587 * green + 0.114 * blue);
    double cb = floor(-0.169 * red - 0.331 * green + 0.5 * blue + 128);
    double cr = floor(0.5 * red - 0.419 * green - 0.081 * blue + 128);
    cframe_display_op op = {.kind = CFRAME_DISPLAY_ASSIGN_COLOR, .palette = index};
    op.ycbcr[0] = ((unsigned)y & 0xFF) >> 4;
    op.ycbcr[1] = ((unsigned)cb & 0xFF) >> 5;
    op.ycbcr[2] = ((unsigned)cr & 0xFF) >> 5;
    op.rgb[0] = (int)red;
    op.rgb[1] = (int)green;
    op.rgb[2] = (int)blue;
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_assign_color_ycbcr(lua_State *L)
{
    int index = palette_index(L, 1);
    lua_Integer y = luaL_checkinteger(L, 2);
    lua_Integer cb = luaL_checkinteger(L, 3);
    lua_Integer cr = luaL_checkinteger(L, 4);
    if (y < 0 || y > 15) luaL_error(L, "Y component must be between 0 and 15");
    if (cb < 0 || cb > 7) luaL_error(L, "Cb component must be between 0 and 7");
    if (cr < 0 || cr > 7) luaL_error(L, "Cr component must be between 0 and 7");
    cframe_display_op op = {.kind = CFRAME_DISPLAY_ASSIGN_COLOR, .palette = index};
    op.ycbcr[0] = (int)y;
    op.ycbcr[1] = (int)cb;
    op.ycbcr[2] = (int)cr;
    op.rgb[0] = op.rgb[1] = op.rgb[2] = -1;
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_bitmap(lua_State *L)
{
    size_t length;
    const char *pixels = luaL_checklstring(L, 6, &length);
    cframe_display_op op = {
        .kind = CFRAME_DISPLAY_BITMAP,
        .x = luaL_checkinteger(L, 1),
        .y = luaL_checkinteger(L, 2),
        .width = luaL_checkinteger(L, 3),
        .total_colors = luaL_checkinteger(L, 4),
        .palette = luaL_checkinteger(L, 5),
        .bytes = pixels,
        .length = length,
    };
    check_sprite(L, op.x, op.y, op.width, op.total_colors, op.palette);
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_text(lua_State *L)
{
    size_t length;
    const char *string = luaL_checklstring(L, 1, &length);
    lua_Integer x = luaL_checkinteger(L, 2);
    lua_Integer y = luaL_checkinteger(L, 3);
    lua_Integer palette = 0;
    lua_Integer spacing = 4;
    if (lua_istable(L, 4)) {
        if (lua_getfield(L, 4, "color") != LUA_TNIL) {
            // The firmware searches names from WHITE on, so WHITE is offset 0 and VOID is refused.
            int index = palette_index(L, -1);
            if (index == 0) luaL_error(L, "Invalid color name");
            palette = index - 1;
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "spacing") != LUA_TNIL) spacing = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    // The first glyph that fits is drawn through the sprite checks.
    if (strlen(string) > 0 && x + 1 <= 640 && y + GLYPH_HEIGHT <= 400) check_sprite(L, x, y, 1, 2, palette);
    cframe_display_op op = {
        .kind = CFRAME_DISPLAY_TEXT,
        .bytes = string,
        .length = length,
        .x = x,
        .y = y,
        .palette = palette,
        .spacing = spacing,
    };
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_show(lua_State *L)
{
    cframe_display_op op = {.kind = CFRAME_DISPLAY_SHOW};
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_set_brightness(lua_State *L)
{
    lua_Integer level = luaL_checkinteger(L, 1);
    if (level < -2 || level > 2) luaL_error(L, "level must be -2, -1, 0, 1, or 2");
    cframe_display_op op = {.kind = CFRAME_DISPLAY_BRIGHTNESS, .value = level};
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_write_register(lua_State *L)
{
    lua_Integer address = luaL_checkinteger(L, 1);
    lua_Integer value = luaL_checkinteger(L, 2);
    if (address < 0 || address > 0xFF) luaL_error(L, "address must be a 8 bit unsigned number");
    if (value < 0 || value > 0xFF) luaL_error(L, "value must be a 8 bit unsigned number");
    cframe_display_op op = {.kind = CFRAME_DISPLAY_WRITE_REGISTER, .x = address, .value = value};
    frame_display_report(frame_device(L), &op);
    return 0;
}

static int display_power_save(lua_State *L)
{
    if (!lua_isboolean(L, 1)) luaL_error(L, "value must be true or false");
    cframe_display_op op = {.kind = CFRAME_DISPLAY_POWER_SAVE, .value = lua_toboolean(L, 1)};
    frame_display_report(frame_device(L), &op);
    return 0;
}

void frame_open_display(lua_State *L)
{
    const luaL_Reg functions[] = {
        {"assign_color", display_assign_color},
        {"assign_color_ycbcr", display_assign_color_ycbcr},
        {"bitmap", display_bitmap},
        {"text", display_text},
        {"show", display_show},
        {"power_save", display_power_save},
        {"set_brightness", display_set_brightness},
        {"write_register", display_write_register},
        {NULL, NULL},
    };
    frame_register(L, "display", functions);
}
