// frame.file and the firmware's `require`, on a host directory standing in for littlefs.
#include "device.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_HANDLE "FILE*"
/// littlefs' name_max in the firmware's configuration.
#define NAME_MAX_LENGTH 0x100
/// LUAL_BUFFERSIZE on the device (32-bit pointers, 64-bit numbers): the longest line read returns.
#define LINE_MAX_LENGTH 512

typedef struct {
    FILE *file;
    int writable;
} file_handle;

/// The host path of a flash path ("/a/b", "a/b" and "a//b" are the same); NULL for one leaving the flash.
static char *host_path(lua_State *L, const char *path)
{
    cframe_device *device = frame_device(L);
    for (const char *cursor = path; (cursor = strstr(cursor, "..")) != NULL; cursor += 2) {
        bool starts = cursor == path || cursor[-1] == '/';
        bool ends = cursor[2] == 0 || cursor[2] == '/';
        if (starts && ends) {
            lua_pushnil(L);
            return NULL;
        }
    }
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    luaL_addstring(&buffer, device->flash_path);
    const char *cursor = path;
    while (*cursor) {
        while (*cursor == '/') cursor++;
        const char *end = strchr(cursor, '/');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        if (length == 0) break;
        if (!(length == 1 && cursor[0] == '.')) {
            luaL_addchar(&buffer, '/');
            luaL_addlstring(&buffer, cursor, length);
        }
        cursor += length;
    }
    luaL_pushresult(&buffer);
    // The string stays on the stack (and alive) until the C function returns.
    return (char *)lua_tostring(L, -1);
}

static file_handle *check_open(lua_State *L)
{
    file_handle *handle = (file_handle *)luaL_checkudata(L, 1, FILE_HANDLE);
    if (handle->file == NULL) luaL_error(L, "attempt to use a closed file");
    return handle;
}

static int file_close(lua_State *L)
{
    file_handle *handle = check_open(L);
    fclose(handle->file);
    handle->file = NULL;
    return 0;
}

static int file_collect(lua_State *L)
{
    file_handle *handle = (file_handle *)luaL_checkudata(L, 1, FILE_HANDLE);
    if (handle->file != NULL) fclose(handle->file);
    handle->file = NULL;
    return 0;
}

static int file_open(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    file_handle *handle = (file_handle *)lua_newuserdatauv(L, sizeof(file_handle), 0);
    handle->file = NULL;
    luaL_setmetatable(L, FILE_HANDLE);
    const char *host_mode = NULL;
    switch (mode[0]) {
    case 'r': host_mode = "rb"; break;
    case 'w': host_mode = "w+b"; break;
    case 'a': host_mode = "a+b"; break;
    default: luaL_error(L, "mode must be 'r', 'w', or 'a'");
    }
    char *path = host_path(L, name);
    struct stat info;
    FILE *file = NULL;
    if (path != NULL && !(stat(path, &info) == 0 && S_ISDIR(info.st_mode))) file = fopen(path, host_mode);
    if (file == NULL) luaL_error(L, "cannot open file %s", name);
    lua_pop(L, 1);
    handle->file = file;
    handle->writable = mode[0] != 'r';
    return 1;
}

static int file_read(lua_State *L)
{
    file_handle *handle = check_open(L);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    for (size_t i = 0; i < LINE_MAX_LENGTH; i++) {
        int character = fgetc(handle->file);
        if (character == EOF && ferror(handle->file)) luaL_error(L, "error reading file");
        if (character == EOF || character == '\n') {
            if (i == 0) {
                if (character == '\n') lua_pushstring(L, "");
                else lua_pushnil(L);
                return 1;
            }
            break;
        }
        luaL_addchar(&buffer, (char)character);
    }
    luaL_pushresult(&buffer);
    return 1;
}

static int file_write(lua_State *L)
{
    file_handle *handle = check_open(L);
    if (!handle->writable) luaL_error(L, "file opened in read-only mode");
    size_t length;
    const char *string = luaL_checklstring(L, 2, &length);
    if (fwrite(string, 1, length, handle->file) != length || fflush(handle->file) != 0) {
        luaL_error(L, "error writing to file");
    }
    return 0;
}

static int file_remove(lua_State *L)
{
    const char *path = host_path(L, luaL_checkstring(L, 1));
    if (path == NULL || remove(path) != 0) luaL_error(L, "error deleting file/directory");
    return 0;
}

static int file_rename(lua_State *L)
{
    const char *from = host_path(L, luaL_checkstring(L, 1));
    const char *to = host_path(L, luaL_checkstring(L, 2));
    if (from == NULL || to == NULL || rename(from, to) != 0) luaL_error(L, "error renaming file/directory");
    return 0;
}

// Creates every directory along the path; like littlefs, one that already exists is an error.
static int file_mkdir(lua_State *L)
{
    size_t length;
    const char *path = luaL_checklstring(L, 1, &length);
    if (length > NAME_MAX_LENGTH) luaL_error(L, "path too long");
    for (size_t i = 1; i <= length; i++) {
        if (i < length && path[i] != '/') continue;
        lua_pushlstring(L, path, i);
        const char *prefix = host_path(L, lua_tostring(L, -1));
        if (prefix == NULL || mkdir(prefix, 0755) != 0) luaL_error(L, "error creating directory");
        lua_pop(L, 2);
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void push_entry(lua_State *L, lua_Integer index, const char *name, lua_Integer size, lua_Integer type)
{
    lua_newtable(L);
    lua_pushinteger(L, size);
    lua_setfield(L, -2, "size");
    lua_pushinteger(L, type);
    lua_setfield(L, -2, "type");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_seti(L, -2, index);
}

// littlefs lists "." and ".." first, then the entries in name order; type 1 is a file, 2 a directory.
static int file_listdir(lua_State *L)
{
    const char *path = host_path(L, luaL_checkstring(L, 1));
    DIR *directory = path ? opendir(path) : NULL;
    if (directory == NULL) luaL_error(L, "directory not found");
    char *names[1024];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && count < 1024) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        names[count] = strdup(entry->d_name);
        if (names[count] != NULL) count++;
    }
    closedir(directory);
    qsort(names, count, sizeof(char *), compare_names);
    lua_newtable(L);
    push_entry(L, 1, ".", 0, 2);
    push_entry(L, 2, "..", 0, 2);
    for (size_t i = 0; i < count; i++) {
        lua_pushfstring(L, "%s/%s", path, names[i]);
        struct stat info;
        int is_directory = stat(lua_tostring(L, -1), &info) == 0 && S_ISDIR(info.st_mode);
        lua_pop(L, 1);
        push_entry(L, (lua_Integer)i + 3, names[i], is_directory ? 0 : (lua_Integer)info.st_size, is_directory ? 2 : 1);
        free(names[i]);
    }
    return 1;
}

// The firmware's require: runs <name>.lua from flash every time (no package.loaded), with the file
// name as chunk name, and returns the top of the stack.
static int file_require(lua_State *L)
{
    const char *module = luaL_checkstring(L, 1);
    const char *file_name = lua_pushfstring(L, "%s.lua", module);
    char *path = host_path(L, file_name);
    FILE *file = path ? fopen(path, "rb") : NULL;
    if (file == NULL) luaL_error(L, "cannot open file: %s", file_name);
    lua_pop(L, 1);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    char chunk[4096];
    size_t read;
    while ((read = fread(chunk, 1, sizeof(chunk), file)) > 0) luaL_addlstring(&buffer, chunk, read);
    int failed = ferror(file);
    fclose(file);
    if (failed) luaL_error(L, "error reading file: %s", file_name);
    luaL_pushresult(&buffer);
    size_t size;
    const char *source = lua_tolstring(L, -1, &size);
    int status = luaL_loadbuffer(L, source, size, file_name);
    lua_remove(L, -2);
    if (status != LUA_OK || lua_pcall(L, 0, LUA_MULTRET, 0) != LUA_OK) {
        luaL_error(L, "exiting module '%s': %s", module, lua_tostring(L, -1));
    }
    return 1;
}

/// Empties the flash directory, as a reformat does.
static void wipe(const char *path, int keep)
{
    DIR *directory = opendir(path);
    if (directory == NULL) return;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        size_t length = strlen(path) + strlen(entry->d_name) + 2;
        char *child = malloc(length);
        if (child == NULL) continue;
        snprintf(child, length, "%s/%s", path, entry->d_name);
        struct stat info;
        if (lstat(child, &info) == 0 && S_ISDIR(info.st_mode)) wipe(child, 0);
        else unlink(child);
        free(child);
    }
    closedir(directory);
    if (!keep) rmdir(path);
}

void frame_open_file(lua_State *L, bool reformat)
{
    cframe_device *device = frame_device(L);
    if (reformat) wipe(device->flash_path, 1);
    mkdir(device->flash_path, 0755);

    luaL_newmetatable(L, FILE_HANDLE);
    const luaL_Reg methods[] = {
        {"read", file_read},
        {"write", file_write},
        {"close", file_close},
        {NULL, NULL},
    };
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, file_collect);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);

    const luaL_Reg functions[] = {
        {"open", file_open},
        {"remove", file_remove},
        {"rename", file_rename},
        {"listdir", file_listdir},
        {"mkdir", file_mkdir},
        {NULL, NULL},
    };
    frame_register(L, "file", functions);
    lua_pushcfunction(L, file_require);
    lua_setglobal(L, "require");
}
