# Emulated firmware module `display` (frozen modules/display.py over _display, fpga, vgr2d).
# show() reports the flattened objects to the host as JSON ('s') instead of drawing them;
# positions are what the firmware sends to the FPGA (Text: top-left corner after justify).
import _sibyl_emu as _emu
import json as _json

WIDTH = 640
HEIGHT = 400
FONT_HEIGHT = 48
FONT_WIDTH = 24  # 23 px glyph + 1 px spacing

TOP_LEFT = 1
MIDDLE_LEFT = 2
BOTTOM_LEFT = 3
TOP_CENTER = 4
BOTTOM_CENTER = 5
TOP_RIGHT = 6
MIDDLE_CENTER = 7
MIDDLE_RIGHT = 8
BOTTOM_RIGHT = 9

CLEAR = 0x000000
BLACK = 0x000000
RED = 0xAD2323
GREEN = 0x1D6914
BLUE = 0x2A4BD7
CYAN = 0x29D0D0
MAGENTA = 0x8126C0
YELLOW = 0xFFEE33
WHITE = 0xFFFFFF
GRAY1 = 0x1C1C1C
GRAY2 = 0x383838
GRAY3 = 0x555555
GRAY4 = 0x717171
GRAY5 = 0x8D8D8D
GRAY6 = 0xAAAAAA
GRAY7 = 0xC6C6C6
GRAY8 = 0xE2E2E2

_brightness = 3


class TextOverlapError(Exception):
    pass


class _Shape:
    def color(self, color_rgb):
        self.color_rgb = color_rgb


class Line(_Shape):
    def __init__(self, x1, y1, x2, y2, color, thickness=1):
        if thickness > 18:
            raise ValueError("max thickness is 18")
        self.x1, self.y1, self.x2, self.y2 = int(x1), int(y1), int(x2), int(y2)
        self.width = thickness
        self.color(color)

    def __repr__(self):
        return "%s(%d, %d, %d, %d, 0x%06x, thickness=%d)" % (
            type(self).__name__, self.x1, self.y1, self.x2, self.y2, self.color_rgb, self.width)

    def move(self, x, y):
        self.x1 += int(x)
        self.y1 += int(y)
        self.x2 += int(x)
        self.y2 += int(y)
        return self

    def _json(self):
        return {"type": type(self).__name__, "x1": self.x1, "y1": self.y1, "x2": self.x2,
                "y2": self.y2, "color": self.color_rgb, "thickness": self.width}


class HLine(Line):
    def __init__(self, x, y, width, color, thickness=1):
        super().__init__(x, y, x + width, y, color, thickness=thickness)


class VLine(Line):
    def __init__(self, x, y, height, color, thickness=1):
        super().__init__(x, y, x, y + height, color, thickness=thickness)


class Rectangle(_Shape):
    def __init__(self, x1, y1, x2, y2, color):
        self.x, self.y = min(x1, x2), min(y1, y2)
        self.width, self.height = abs(x2 - x1), abs(y2 - y1)
        self.color(color)

    def __repr__(self):
        return "%s(%d, %d, %d, %d, 0x%06x)" % (type(self).__name__, self.x, self.y,
                                               self.x + self.width, self.y + self.height, self.color_rgb)

    def move(self, x, y):
        self.x += int(x)
        self.y += int(y)
        return self

    def _json(self):
        return {"type": type(self).__name__, "x1": self.x, "y1": self.y, "x2": self.x + self.width,
                "y2": self.y + self.height, "color": self.color_rgb}


class Fill(Rectangle):
    def __init__(self, color):
        super().__init__(0, 0, WIDTH - 1, HEIGHT - 1, color)


class Polyline(_Shape):
    def __init__(self, l, color, thickness=1):
        if len(l) % 2 != 0:
            raise ValueError("l must have odd number of coordinates")  # sic, the firmware's text
        self.points = [[l[i], l[i + 1]] for i in range(0, len(l), 2)]
        self.width = thickness
        self.color(color)

    def __repr__(self):
        points = ", ".join(["%d,%d" % (p[0], p[1]) for p in self.points])
        return "%s([%s], 0x%06x, thickness=%d)" % (type(self).__name__, points, self.color_rgb, self.width)

    def move(self, x, y):
        for p in self.points:
            p[0] += int(x)
            p[1] += int(y)

    def _json(self):
        return {"type": type(self).__name__, "points": self.points, "color": self.color_rgb,
                "thickness": self.width}


class Polygon(Polyline):
    pass


class Text(_Shape):
    def __init__(self, string, x, y, color, justify=TOP_LEFT):
        self.x, self.y = int(x), int(y)
        self.string = string
        self.justify(justify)
        self.color(color)

    def __repr__(self):
        return "Text('%s', %d, %d, 0x%06x)" % (self.string, self.x, self.y, self.color_rgb)

    def justify(self, justify):
        # Moves the anchor to the top-left corner: x by -width/2 or -width, y by -24 or -48.
        if justify not in range(1, 10):
            raise ValueError("unknown justify value")
        self._justify = justify
        if justify in (TOP_CENTER, MIDDLE_CENTER, BOTTOM_CENTER):
            self.x -= self.width(self.string) // 2
        elif justify in (TOP_RIGHT, MIDDLE_RIGHT, BOTTOM_RIGHT):
            self.x -= self.width(self.string)
        if justify in (MIDDLE_LEFT, MIDDLE_CENTER, MIDDLE_RIGHT):
            self.y -= FONT_HEIGHT // 2
        elif justify in (BOTTOM_LEFT, BOTTOM_CENTER, BOTTOM_RIGHT):
            self.y -= FONT_HEIGHT

    def width(self, string):
        return FONT_WIDTH * len(string)

    def move(self, x, y):
        self.x += x
        self.y += y
        return self

    def _json(self):
        # The device clips text at the screen edges; the host gets the whole string.
        return {"type": "Text", "text": self.string, "x": self.x, "y": self.y,
                "color": self.color_rgb, "justify": self._justify}


def flatten(o):
    if isinstance(o, (tuple, list)):
        return [leaf for item in o for leaf in flatten(item)]
    return [o]


def move(*args):
    for obj in flatten(args[:-2]):
        obj.move(args[-2], args[-1])


def color(*args):
    for obj in flatten(args[:-1]):
        obj.color(args[-1])


def _check_colors(objs):
    # The FPGA's palettes (one for shapes, one for text) hold at most 128 entries.
    seen = []
    for obj in objs:
        if obj.color_rgb not in seen:
            if len(seen) > 128:
                raise ValueError("more than 128 different color unsupported")
            seen.append(obj.color_rgb)


def _check_overlap(texts):
    # Like the firmware: boxes of 24 px per character by 48 px, edges included, so text lines
    # need a pitch of more than 48 px (and touching boxes count as overlapping).
    for a in texts:
        ax2, ay2 = a.x + FONT_WIDTH * len(a.string), a.y + FONT_HEIGHT
        for b in texts:
            if a is b:
                continue
            bx2, by2 = b.x + FONT_WIDTH * len(b.string), b.y + FONT_HEIGHT
            if a.x <= bx2 and ax2 >= b.x and a.y <= by2 and ay2 >= b.y:
                raise TextOverlapError("%r overlaps with %r" % (a, b))


def show(*args, dump=False):
    objs = flatten(args)
    texts = [o for o in objs if isinstance(o, Text)]
    _check_colors([o for o in objs if not isinstance(o, Text)])
    _check_colors(texts)
    _check_overlap(sorted(texts, key=lambda o: o.x))
    _emu.send("s", _json.dumps([o._json() for o in objs]))
    _emu.wait_ms(20)  # the firmware waits for the FPGA's text buffer swap


def clear():
    _emu.send("s", "[]")
    _emu.wait_ms(20)


def brightness(level):
    global _brightness
    if level < 0 or level > 4:
        raise ValueError("brightness must be between 0 and 4")
    _brightness = level
