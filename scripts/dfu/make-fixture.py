#!/usr/bin/env python3
"""Makes the glasses' Secure DFU test packages with Nordic's own packager (nrfutil), the reference
the tests check against.

Brilliant Labs ships firmware for both glasses as nrfutil packages (a zip with manifest.json,
application.dat and application.bin), made with `nrfutil pkg generate --hw-version 52 --sd-req ...
--application ...` and signed with a P-256 key:

- Monocle: SoftDevice requirement 0x0124;
- Frame: S140 7.3.0 (0x0123), application version 0.

Each package here has that shape with a stand-in application: deterministic bytes holding a
firmware version string (as the real image holds `device.VERSION` or `frame.FIRMWARE_VERSION`),
signed with a throw-away key whose public half the emulated bootloader trusts.

Run by hand when a fixture must change; the tests use the committed output:

    python3 -m venv /tmp/nrf && /tmp/nrf/bin/pip install 'ecdsa<0.19' 'protobuf==3.20.3' six intelhex pyyaml
    /tmp/nrf/bin/pip download nrfutil==6.0.0a1 --no-deps -d /tmp/nrfdl && tar -C /tmp/nrfdl -xzf /tmp/nrfdl/nrfutil-6.0.0a1.tar.gz
    /tmp/nrf/bin/python scripts/dfu/make-fixture.py monocle /tmp/nrfdl/nrfutil-6.0.0a1 Tests/SecureDFUTests/Fixtures/dfu
    /tmp/nrf/bin/python scripts/dfu/make-fixture.py frame /tmp/nrfdl/nrfutil-6.0.0a1 Tests/SecureDFUTests/Fixtures/dfu

nrfutil 6.0.0a1's packager imports only the exception classes of pc_ble_driver_py (a BLE driver with
native code that isn't needed to make a package); this script supplies those four classes.
"""
import os
import random
import sys
import tempfile
import types

# What differs between the two glasses' packages.
GLASSES = {
    "monocle": dict(
        version=b"v23.300.1200",  # what device.VERSION reports once this image runs
        size=18_000,  # four full 4 KiB data objects and a partial fifth
        seed=23300, version_at=9_000, app_version=1, softdevice=0x0124,
        key="test-key", package="monocle-firmware-test.zip",
    ),
    "frame": dict(
        version=b"v25.120.1500",  # what frame.FIRMWARE_VERSION reports once this image runs
        size=14_000,  # three full 4 KiB data objects and a partial fourth
        seed=25120, version_at=6_000, app_version=0, softdevice=0x0123,
        key="frame-test-key", package="frame-firmware-test.zip",
    ),
}

if len(sys.argv) != 4 or sys.argv[1] not in GLASSES:
    sys.exit("usage: make-fixture.py monocle|frame NRFUTIL_SOURCE OUTPUT_DIR")
kind, nrfutil, out = sys.argv[1], sys.argv[2], sys.argv[3]
fixture = GLASSES[kind]

exceptions = types.ModuleType("pc_ble_driver_py.exceptions")
for name in ("NordicSemiException", "NotImplementedException", "InvalidArgumentException", "IllegalStateException"):
    setattr(exceptions, name, type(name, (Exception,), {}))
sys.modules["pc_ble_driver_py"] = types.ModuleType("pc_ble_driver_py")
sys.modules["pc_ble_driver_py.exceptions"] = exceptions
sys.path.insert(0, nrfutil)

from nordicsemi.dfu.package import Package, PacketField  # noqa: E402
from nordicsemi.dfu.signing import Signing  # noqa: E402
from nordicsemi.dfu.model import FirmwareKeys, HexType  # noqa: E402

os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
rng = random.Random(fixture["seed"])
image = bytearray(rng.getrandbits(8) for _ in range(fixture["size"]))
version, at = fixture["version"], fixture["version_at"]
image[at : at + len(version) + 2] = b"\0" + version + b"\0"  # a C string in .rodata
application = os.path.join(work, "application.bin")
with open(application, "wb") as f:
    f.write(image)

key = os.path.join(work, fixture["key"] + ".pem")
signer = Signing()
signer.gen_key(key)
with open(os.path.join(out, fixture["key"] + "-public.pem"), "w") as f:
    f.write(signer.get_vk_pem())

softdevice = fixture["softdevice"]
package = Package(hw_version=52, app_version=fixture["app_version"], sd_req=[softdevice], app_fw=application, key_file=key)
# 6.0.0a1 records sd_req only for images added after it (a bootloader or SoftDevice); the
# application's init packet would say 0xFFFE ("any"). The glasses' own packages name theirs.
package.firmwares_data[HexType.APPLICATION][FirmwareKeys.INIT_PACKET_DATA][PacketField.REQUIRED_SOFTDEVICES_ARRAY] = [softdevice]
path = os.path.join(out, fixture["package"])
package.generate_package(path)
print("wrote", path, "and the public key")
