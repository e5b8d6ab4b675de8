"""llama.cpp's libraries are loaded before numpy's in every process that loads a model.

On a CUDA build, ``llama_model_load_from_file`` segfaulted when numpy (or torch) had been
imported before llama.cpp's shared libraries were loaded (seen on an H200; the test machines
have no CUDA build, so this checks the order itself, through the real CLI and a real model).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def test_bench_command_loads_llama_cpp_before_numpy(tiny_gguf: Path, tmp_path: Path) -> None:
    """``bench`` measures memory bandwidth with numpy before it loads the model."""
    result = run_python(f"""
        import json, sys
        from app.main import main
        status = main(["--home", {str(tmp_path / "home")!r}, "bench", {str(tiny_gguf)!r}, "--seqs", "1",
                       "--prompt-tokens", "8", "--max-tokens", "4", "--json"])
        names = list(sys.modules)
        print(json.dumps({{"status": status, "llama": names.index("llama_cpp.llama_cpp"),
                          "numpy": names.index("numpy") if "numpy" in names else None}}))
    """)
    assert result["status"] == 0
    assert result["numpy"] is not None  # llama-cpp-python itself imports numpy, after its libraries
    assert isinstance(result["llama"], int) and isinstance(result["numpy"], int)
    assert result["llama"] < result["numpy"]


def test_reading_model_metadata_imports_neither_numpy_nor_gguf(tiny_gguf: Path) -> None:
    result = run_python(f"""
        import json, sys
        from pathlib import Path
        from app.core.planner import read_model_metadata
        model = read_model_metadata(Path({str(tiny_gguf)!r}))
        print(json.dumps({{"layers": model.n_layers, "numpy": "numpy" in sys.modules, "gguf": "gguf" in sys.modules}}))
    """)
    assert result == {"layers": 2, "numpy": False, "gguf": False}
