"""AMD GPUs from sysfs (``/sys/class/drm/card*/device``): name, VRAM, GTT, and whether it is an APU."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.hardware.sources import ProbeSources

AMD_VENDOR_ID = "0x1002"
GIB = 1024**3
# An APU shows a small BIOS carve-out as "VRAM" and reaches system RAM through a much larger GTT.
APU_MAX_VRAM_BYTES = 4 * GIB
APU_MIN_GTT_TO_VRAM_RATIO = 2

# PCI device ids -> marketing names, for kernels that expose no product_name.
AMD_DEVICE_NAMES: dict[str, str] = {
    "0x1586": "AMD Radeon 8060S (Strix Halo)",
    "0x150e": "AMD Radeon 890M (Strix Point)",
    "0x15bf": "AMD Radeon 780M (Phoenix)",
    "0x1681": "AMD Radeon 680M (Rembrandt)",
    "0x7550": "AMD Radeon RX 9070 series (Navi 48)",
    "0x7480": "AMD Radeon RX 7600 series (Navi 33)",
    "0x747e": "AMD Radeon RX 7800/7700 XT (Navi 32)",
    "0x73bf": "AMD Radeon RX 6800/6900 series (Navi 21)",
    "0x74a1": "AMD Instinct MI300X",
}
# Navi 31 (0x744c) is the RX 7900 family; the VRAM size tells the cards apart.
NAVI31_DEVICE_ID = "0x744c"
NAVI31_BY_VRAM_GIB = {24: "AMD Radeon RX 7900 XTX", 20: "AMD Radeon RX 7900 XT", 16: "AMD Radeon RX 7900 GRE"}


@dataclass(frozen=True)
class AmdGpu:
    """One AMD GPU as sysfs describes it (byte counts are ``None`` where the file is missing)."""

    card: str
    name: str
    device_id: str | None
    vram_total_bytes: int | None
    vram_used_bytes: int | None
    gtt_total_bytes: int | None

    @property
    def is_apu(self) -> bool:
        """Small VRAM carve-out with a much larger GTT: the GPU lives on system RAM."""
        if self.vram_total_bytes is None or self.gtt_total_bytes is None:
            return False
        return (
            self.vram_total_bytes <= APU_MAX_VRAM_BYTES
            and self.gtt_total_bytes >= APU_MIN_GTT_TO_VRAM_RATIO * max(self.vram_total_bytes, 1)
        )

    @property
    def vram_free_bytes(self) -> int | None:
        if self.vram_total_bytes is None or self.vram_used_bytes is None:
            return None
        return max(self.vram_total_bytes - self.vram_used_bytes, 0)


def _read_int(sources: ProbeSources, path: str) -> int | None:
    text = sources.read_text(path)
    try:
        return int(text.strip()) if text is not None else None
    except ValueError:
        return None


def _gpu_name(product_name: str | None, device_id: str | None, vram_total: int | None) -> str:
    if product_name:
        return product_name if "amd" in product_name.lower() else f"AMD {product_name}"
    if device_id == NAVI31_DEVICE_ID and vram_total is not None:
        name = NAVI31_BY_VRAM_GIB.get(round(vram_total / GIB))
        if name:
            return name
    if device_id in AMD_DEVICE_NAMES:
        return AMD_DEVICE_NAMES[device_id]
    return f"AMD GPU {device_id or 'unknown'}"


def read_amd_gpus(sources: ProbeSources) -> tuple[AmdGpu, ...]:
    """Every AMD (vendor 0x1002) DRM card; nothing on non-Linux systems or when sysfs is absent."""
    if sources.system != "Linux":
        return ()
    gpus: list[AmdGpu] = []
    for card in sources.list_dir("/sys/class/drm"):
        if not re.fullmatch(r"card\d+", card):
            continue
        device = f"/sys/class/drm/{card}/device"
        vendor = (sources.read_text(f"{device}/vendor") or "").strip().lower()
        if vendor != AMD_VENDOR_ID:
            continue
        device_id = (sources.read_text(f"{device}/device") or "").strip().lower() or None
        vram_total = _read_int(sources, f"{device}/mem_info_vram_total")
        product_name = (sources.read_text(f"{device}/product_name") or "").strip() or None
        gpus.append(
            AmdGpu(
                card=card,
                name=_gpu_name(product_name, device_id, vram_total),
                device_id=device_id,
                vram_total_bytes=vram_total,
                vram_used_bytes=_read_int(sources, f"{device}/mem_info_vram_used"),
                gtt_total_bytes=_read_int(sources, f"{device}/mem_info_gtt_total"),
            )
        )
    return tuple(gpus)
