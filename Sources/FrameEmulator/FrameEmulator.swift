import CFrameLua
