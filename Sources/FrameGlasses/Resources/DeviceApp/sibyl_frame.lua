-- Sibyl's app for Brilliant Labs Frame, written by the Sibyl team.
--
-- The host talks to it in messages: a code byte, a 16-bit big-endian size and the body, split
-- over data writes; every packet is acknowledged with the data byte 0x00 (0x01 when it could not
-- be taken), so the host sends the next one only when this one is in. The app sends taps, the
-- microphone's samples and photos back as data notifications, each starting with a flag byte.

local TEXT, STATUS, LISTEN, STOP, PHOTO, CLEAR, PROMPTS = 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26
local TAP, AUDIO, AUDIO_END, JPEG, JPEG_END = 0x09, 0x05, 0x06, 0x07, 0x08

local LINE_HEIGHT = 58
local VISIBLE_LINES = 6
local SCROLL_SECONDS = 2.5
local QUALITIES = { 'VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH' }
local COLOURS = { [0] = 'WHITE', 'WHITE', 'GREY', 'RED', 'PINK', 'DARKBROWN', 'BROWN', 'ORANGE', 'YELLOW',
    'DARKGREEN', 'GREEN', 'LIGHTGREEN', 'NIGHTBLUE', 'SEABLUE', 'SKYBLUE', 'CLOUDBLUE' }
local STATUSES = {
    [0] = { 'Tap to ask', 'GREY' },
    [1] = { 'Listening...', 'GREEN' },
    [2] = { 'Thinking...', 'SKYBLUE' },
    [3] = { 'Taking a photo...', 'YELLOW' },
    [4] = { 'Listening (photo)...', 'GREEN' },
}
-- What the app shows when something fails on the glasses (the host may send the wearer's words).
local TROUBLE = { 'Something went wrong on the glasses.', 'Tap to try again.' }

local inbox = {}
local partial = {}

-- Sends one notification, trying again while the link's single slot is busy (it frees at the next
-- connection event, every 15 ms or so). Gives up after about a second (the link may be gone), so a
-- lost host never hangs the app.
local function send(bytes)
    for _ = 1, 400 do
        if pcall(frame.bluetooth.send, bytes) then return true end
        frame.sleep(0.0025)
    end
    return false
end

local function take_packet(data)
    local code = string.byte(data, 1)
    local entry = partial[code]
    local body
    if entry == nil then
        entry = { size = (string.byte(data, 2) << 8) | string.byte(data, 3), got = 0, parts = {} }
        partial[code] = entry
        body = string.sub(data, 4)
    else
        body = string.sub(data, 2)
    end
    entry.parts[#entry.parts + 1] = body
    entry.got = entry.got + #body
    if entry.got >= entry.size then
        partial[code] = nil
        inbox[#inbox + 1] = { code = code, body = table.concat(entry.parts) }
    end
end

local function on_data(data)
    if pcall(take_packet, data) then send('\x00') else send('\x01') end
end

-- The screen: lines of one colour, scrolled a line at a time when there are more than fit.
local screen = { lines = {}, colour = 'WHITE', top = 1, next_scroll = nil }

local function draw()
    for row = 0, VISIBLE_LINES - 1 do
        local line = screen.lines[screen.top + row]
        if line ~= nil and #line > 0 then
            frame.display.text(line, 1, 1 + row * LINE_HEIGHT, { color = screen.colour })
        end
    end
    frame.display.show()
end

local function show(lines, colour)
    screen.lines = lines
    screen.colour = colour
    screen.top = 1
    screen.next_scroll = (#lines > VISIBLE_LINES) and (frame.time.utc() + SCROLL_SECONDS * 2) or nil
    draw()
end

local function scroll()
    if screen.next_scroll == nil or frame.time.utc() < screen.next_scroll then return end
    screen.top = screen.top + 1
    if screen.top + VISIBLE_LINES - 1 >= #screen.lines then
        screen.next_scroll = nil
    else
        screen.next_scroll = frame.time.utc() + SCROLL_SECONDS
    end
    draw()
end

local function split_lines(text)
    local lines = {}
    for line in string.gmatch(text .. '\n', '([^\n]*)\n') do lines[#lines + 1] = line end
    return lines
end

local listening = false
local chunk_size = 0

local function start_listening(body)
    local rate = 8000
    local depth = 8
    if #body >= 3 then
        rate = (string.byte(body, 1) << 8) | string.byte(body, 2)
        depth = string.byte(body, 3)
    end
    pcall(frame.microphone.stop)
    frame.microphone.start { sample_rate = rate, bit_depth = depth }
    -- Whole samples per notification.
    chunk_size = ((frame.bluetooth.max_length() - 1) // 2) * 2
    listening = true
end

local function pump_microphone()
    if not listening then return end
    local samples = frame.microphone.read(chunk_size)
    if samples == nil then
        listening = false
        send(string.char(AUDIO_END))
    elseif #samples > 0 then
        send(string.char(AUDIO) .. samples)
    end
end

local function take_photo(body)
    local quality, resolution, pan = 5, 512, 0
    if #body >= 5 then
        quality = string.byte(body, 1) + 1
        resolution = ((string.byte(body, 2) << 8) | string.byte(body, 3)) * 2
        pan = ((string.byte(body, 4) << 8) | string.byte(body, 5)) - 140
    end
    -- A few rounds of automatic exposure first, as the sensor starts dark.
    for _ = 1, 3 do
        pcall(frame.camera.auto, {})
        frame.sleep(0.05)
    end
    frame.camera.capture { resolution = resolution, quality = QUALITIES[quality] or 'VERY_HIGH', pan = pan }
    local waited = 0
    while not frame.camera.image_ready() do
        frame.sleep(0.01)
        waited = waited + 1
        if waited > 500 then error('the camera did not finish the photo') end
    end
    local size = frame.bluetooth.max_length() - 1
    while true do
        local part = frame.camera.read(size)
        if part == nil then break end
        send(string.char(JPEG) .. part)
    end
    send(string.char(JPEG_END))
end

local function handle(message)
    local code, body = message.code, message.body
    if code == TEXT then
        show(split_lines(string.sub(body, 2)), COLOURS[string.byte(body, 1) or 0] or 'WHITE')
    elseif code == STATUS then
        local status = STATUSES[string.byte(body, 1) or 0] or STATUSES[0]
        show({ status[1] }, status[2])
    elseif code == LISTEN then
        start_listening(body)
    elseif code == STOP then
        pcall(frame.microphone.stop)
        -- Not recording (it failed to start): end the recording anyway, so the host is not left waiting.
        if not listening then send(string.char(AUDIO_END)) end
    elseif code == PHOTO then
        take_photo(body)
    elseif code == CLEAR then
        show({}, 'WHITE')
    elseif code == PROMPTS then
        -- The wearer's words: the five status lines, then the two of an error.
        local words = split_lines(body)
        for i = 0, 4 do
            if words[i + 1] and #words[i + 1] > 0 then STATUSES[i][1] = words[i + 1] end
        end
        if words[6] and #words[6] > 0 then TROUBLE[1] = words[6] end
        if words[7] and #words[7] > 0 then TROUBLE[2] = words[7] end
        show({ STATUSES[0][1] }, STATUSES[0][2])
    end
end

local function run()
    frame.bluetooth.receive_callback(on_data)
    -- The tap's moment on Frame's clock (ms, wrapping at 2^32): the host counts a double tap by it, not
    -- by when the notifications reach it, which a busy link or host can bunch together or spread apart.
    frame.imu.tap_callback(function() send(string.char(TAP) .. string.pack('>I4', math.floor(frame.time.utc() * 1000) % 4294967296)) end)
    show({ STATUSES[0][1] }, STATUSES[0][2])
    print('sibyl:ready')
    while true do
        while #inbox > 0 do
            local ok, err = pcall(handle, table.remove(inbox, 1))
            if not ok then
                if string.find(tostring(err), 'break signal', 1, true) then error(err, 0) end
                print('sibyl:error ' .. tostring(err))
                listening = false
                show({ TROUBLE[1], TROUBLE[2] }, 'RED')
            end
        end
        pump_microphone()
        scroll()
        frame.sleep(0.005)
    end
end

local ok, err = pcall(run)
-- A break (or any error) ends the app cleanly: callbacks off, microphone off, screen cleared.
frame.bluetooth.receive_callback(nil)
frame.imu.tap_callback(nil)
pcall(frame.microphone.stop)
frame.display.text(' ', 1, 1)
frame.display.show()
if not ok and not string.find(tostring(err), 'break signal', 1, true) then print('sibyl:error ' .. tostring(err)) end
