#ifndef CFRAMELUA_H
#define CFRAMELUA_H
// The virtual Frame's firmware API on Lua 5.4 (see FrameEmulator).
int cframelua_version(void);
#endif
