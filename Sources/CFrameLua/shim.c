#include "CFrameLua.h"
#include <lua.h>
int cframelua_version(void) { return LUA_VERSION_NUM; }
