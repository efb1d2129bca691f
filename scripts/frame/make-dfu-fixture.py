#!/usr/bin/env python3
"""Makes the Frame firmware test package with Nordic's own packager (nrfutil), as Brilliant Labs builds Frame's.

Frame's firmware Makefile runs `nrfutil pkg generate --hw-version 52 --application-version 0 --sd-req 0x0123`
(S140 7.3.0) and signs with a P-256 key. This package has the same shape, with a stand-in application:
deterministic bytes holding a firmware version string (`vYY.DDD.HHMM`, as Frame's image holds
`frame.FIRMWARE_VERSION`), signed with a throw-away key whose public half the virtual Frame's bootloader trusts.

Run by hand when the fixture must change; the tests use the committed output. Set up nrfutil as
scripts/monocle/make-dfu-fixture.py describes
(with `/tmp/nrf/bin/pip install intelhex pyyaml` too), then:

    /tmp/nrf/bin/python scripts/frame/make-dfu-fixture.py /tmp/nrfdl/nrfutil-6.0.0a1 Tests/MonocleTests/Fixtures/dfu
"""
import os
import random
import sys
import tempfile
import types

nrfutil, out = sys.argv[1], sys.argv[2]

# nrfutil 6.0.0a1's packager imports only the exception classes of pc_ble_driver_py (a native BLE driver).
exceptions = types.ModuleType("pc_ble_driver_py.exceptions")
for name in ("NordicSemiException", "NotImplementedException", "InvalidArgumentException", "IllegalStateException"):
    setattr(exceptions, name, type(name, (Exception,), {}))
sys.modules["pc_ble_driver_py"] = types.ModuleType("pc_ble_driver_py")
sys.modules["pc_ble_driver_py.exceptions"] = exceptions
sys.path.insert(0, nrfutil)

from nordicsemi.dfu.package import Package, PacketField  # noqa: E402
from nordicsemi.dfu.signing import Signing  # noqa: E402
from nordicsemi.dfu.model import FirmwareKeys, HexType  # noqa: E402

VERSION = b"v25.120.1500"  # what frame.FIRMWARE_VERSION reports once this image runs
SIZE = 14_000  # three full 4 KiB data objects and a partial fourth
SOFTDEVICE = 0x0123  # S140 7.3.0

os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
rng = random.Random(25120)
image = bytearray(rng.getrandbits(8) for _ in range(SIZE))
image[6_000 : 6_000 + len(VERSION) + 2] = b"\0" + VERSION + b"\0"  # a C string in .rodata
application = os.path.join(work, "application.bin")
with open(application, "wb") as f:
    f.write(image)

key = os.path.join(work, "frame-test-key.pem")
signer = Signing()
signer.gen_key(key)
with open(os.path.join(out, "frame-test-key-public.pem"), "w") as f:
    f.write(signer.get_vk_pem())

package = Package(hw_version=52, app_version=0, sd_req=[SOFTDEVICE], app_fw=application, key_file=key)
# 6.0.0a1 records sd_req only for images added after it; Frame's init packet says 0x0123.
package.firmwares_data[HexType.APPLICATION][FirmwareKeys.INIT_PACKET_DATA][PacketField.REQUIRED_SOFTDEVICES_ARRAY] = [SOFTDEVICE]
package.generate_package(os.path.join(out, "frame-firmware-test.zip"))
print("wrote", os.path.join(out, "frame-firmware-test.zip"), "and the public key")
