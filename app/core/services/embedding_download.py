"""Fetching the chosen embedding model from the hub on first use, with the models' download job.

Only a model the user asked for is fetched: ``kb.embedding_model = auto`` (the declared setting says
it is downloaded on first use) or an explicit request from the window or `unidesk kb model download`.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Final

from app.core.kb.embedding_choice import download_folder
from app.core.models.downloads import DownloadJob, DownloadSpec
from app.core.models.hub import HubClient

# What a sentence-transformers model needs: configs, tokenizer, weights, and its pooling module.
MODEL_FILE_PATTERNS: Final = ("*.json", "*.safetensors", "*.txt", "*.model")
MODULE_FOLDERS: Final = ("1_Pooling/", "2_Normalize/")


def model_files(hub: HubClient, repo_id: str, revision: str = "main") -> tuple[str, ...]:
    """The files of ``repo_id`` a sentence-transformers model needs (one request for the hub's listing).

    Top-level configs, tokenizer and safetensors weights, and the pooling/normalising modules'
    configs; not ONNX/OpenVINO exports or pickled duplicates of the weights.
    """
    wanted = []
    for remote in hub.list_files(repo_id, revision):
        path = remote.path
        name = path.rsplit("/", 1)[-1]
        in_module = path.startswith(MODULE_FOLDERS) and path.count("/") == 1
        if ("/" not in path or in_module) and any(fnmatch.fnmatch(name, pattern) for pattern in MODEL_FILE_PATTERNS):
            wanted.append(path)
    return tuple(sorted(wanted))


def start_embedding_download(hub: HubClient, repo_id: str, models_dir: Path) -> DownloadJob:
    """Fetch ``repo_id`` into ``<models>/embeddings/<owner>--<name>`` on a worker thread (resumable:
    a cancelled or broken download continues from its ``.part`` files; progress from the job).

    Asks the hub for the file list first (one request): call it off the GUI thread.
    """
    files = model_files(hub, repo_id)
    spec = DownloadSpec(repo_id, download_folder(models_dir, repo_id), files=files,
                        label=f"{repo_id} (embedding model)")
    return DownloadJob(spec, hub).start()
