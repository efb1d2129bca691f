#!/usr/bin/env python3
"""Makes the Secure DFU test package with Nordic's own packager, the reference the tests check against.

The package (a zip with manifest.json, application.dat and application.bin) is what Brilliant Labs
ships for Monocle firmware: `nrfutil pkg generate --hw-version 52 --sd-req 0x0124 --application ...`,
signed with a P-256 key. Here the application is a stand-in image (deterministic bytes with a
firmware version string in it, as the real image has), signed with a throw-away test key whose
public half the emulated bootloader trusts.

Run by hand when the fixture must change; the tests use the committed output:

    python3 -m venv /tmp/nrf && /tmp/nrf/bin/pip install 'ecdsa<0.19' 'protobuf==3.20.3' six
    /tmp/nrf/bin/pip download nrfutil==6.0.0a1 --no-deps -d /tmp/nrfdl && tar -C /tmp/nrfdl -xzf /tmp/nrfdl/nrfutil-6.0.0a1.tar.gz
    /tmp/nrf/bin/python scripts/monocle/make-dfu-fixture.py /tmp/nrfdl/nrfutil-6.0.0a1 Tests/MonocleTests/Fixtures/dfu

nrfutil 6.0.0a1's packager imports only the exception classes of pc_ble_driver_py (a BLE driver with native
code that isn't needed to make a package); this script supplies those four classes.
"""
import os
import random
import sys
import tempfile
import types

nrfutil, out = sys.argv[1], sys.argv[2]

exceptions = types.ModuleType("pc_ble_driver_py.exceptions")
for name in ("NordicSemiException", "NotImplementedException", "InvalidArgumentException", "IllegalStateException"):
    setattr(exceptions, name, type(name, (Exception,), {}))
sys.modules["pc_ble_driver_py"] = types.ModuleType("pc_ble_driver_py")
sys.modules["pc_ble_driver_py.exceptions"] = exceptions
sys.path.insert(0, nrfutil)

from nordicsemi.dfu.package import Package, PacketField  # noqa: E402
from nordicsemi.dfu.signing import Signing  # noqa: E402
from nordicsemi.dfu.model import FirmwareKeys, HexType  # noqa: E402

VERSION = b"v23.300.1200"  # what device.VERSION reports once this image runs
SIZE = 18_000  # four full 4 KiB data objects and a partial fifth

os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
rng = random.Random(23300)
image = bytearray(rng.getrandbits(8) for _ in range(SIZE))
image[9_000 : 9_000 + len(VERSION) + 2] = b"\0" + VERSION + b"\0"  # a C string in .rodata
application = os.path.join(work, "application.bin")
with open(application, "wb") as f:
    f.write(image)

key = os.path.join(work, "test-key.pem")
signer = Signing()
signer.gen_key(key)
with open(os.path.join(out, "test-key-public.pem"), "w") as f:
    f.write(signer.get_vk_pem())

package = Package(hw_version=52, app_version=1, sd_req=[0x0124], app_fw=application, key_file=key)
# 6.0.0a1 records sd_req only for images added after it (a bootloader or SoftDevice); the
# application's init packet would say 0xFFFE ("any"). Monocle's packages say 0x0124.
package.firmwares_data[HexType.APPLICATION][FirmwareKeys.INIT_PACKET_DATA][PacketField.REQUIRED_SOFTDEVICES_ARRAY] = [0x0124]
package.generate_package(os.path.join(out, "monocle-firmware-test.zip"))
print("wrote", os.path.join(out, "monocle-firmware-test.zip"), "and the public key")
