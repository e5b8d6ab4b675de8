"""Which file names are which document format, and which are never documents (binary, media, models)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

CODE_EXTENSIONS: Final = frozenset(
    """py pyi pyw js mjs cjs jsx ts tsx mts cts c h cc cpp cxx hpp hh hxx ipp java kt kts go rs rb sh
    bash zsh fish ps1 psm1 bat cmd php pl pm lua r m mm swift scala sc cs fs fsx vb dart sql hs ml mli
    ex exs erl hrl clj cljs el vim cmake gradle groovy jl zig nim proto graphql gql css scss sass less
    vue svelte tf hcl asm s f f90 pas d cu cuh metal glsl hlsl wgsl sol v sv vhd tcl awk sed""".split()
)
PLAIN_TEXT_EXTENSIONS: Final = frozenset(
    """txt text json jsonl ndjson yaml yml toml xml ini cfg conf config log properties tex bib srt vtt
    env lst diff patch po pot csl adoc asciidoc org textile wiki man 1 nfo""".split()
)
_DOCUMENT_EXTENSIONS: Final = {
    "md": "markdown", "markdown": "markdown", "mdown": "markdown", "mkd": "markdown", "mdx": "markdown",
    "rst": "rst", "rest": "rst",
    "pdf": "pdf",
    "docx": "docx",
    "html": "html", "htm": "html", "xhtml": "html",
    "csv": "csv", "tsv": "tsv",
    "png": "image", "jpg": "image", "jpeg": "image",
}
# Pictures are read by OCR when named (dropped) one by one; folder scans skip them (icons, screenshots).
IMAGE_EXTENSIONS: Final = frozenset({"png", "jpg", "jpeg"})
# Names without a telling extension that are source code.
CODE_FILE_NAMES: Final = frozenset(
    {"makefile", "dockerfile", "containerfile", "jenkinsfile", "rakefile", "gemfile", "vagrantfile"}
)
# Never documents: skipped when scanning folders, refused when named explicitly.
BINARY_EXTENSIONS: Final = frozenset(
    """gif bmp tif tiff webp ico icns heic heif avif psd raw cr2 nef dng svg svgz xcf ai eps
    mp3 wav flac ogg oga m4a aac opus wma aiff mid midi mp4 m4v mkv mov avi webm wmv flv mpg mpeg 3gp
    zip tar gz tgz bz2 tbz2 xz txz 7z rar zst lz4 lzma z cab jar war ear whl egg deb rpm dmg iso img apk
    ipa msi pkg snap appimage exe dll so dylib o obj a lib ko elf bin com class pyc pyo pyd wasm dex
    gguf ggml ggjt safetensors pt pth ckpt onnx tflite pb h5 hdf5 keras npy npz pkl pickle joblib mlmodel
    parquet arrow feather avro orc lance faiss index db sqlite sqlite3 mdb accdb dbf ldb lmdb
    ttf otf woff woff2 eot fon pfb
    doc xls xlsx xlsm ppt pptx odt ods odp odg pages numbers key epub mobi azw3 rtf vsdx one msg pst
    dat sav swp swo lock pdb idb ilk exp blend fbx glb gltf stl 3ds max dwg dxf""".split()
)
UNSUPPORTED_DOCUMENT_HINTS: Final = {
    "doc": "Save it as .docx (Word: File > Save As) and add that.",
    "xls": "Save it as .csv and add that.", "xlsx": "Save it as .csv and add that.",
    "ppt": "Export it to PDF and add that.", "pptx": "Export it to PDF and add that.",
    "odt": "Save it as .docx or PDF and add that.", "rtf": "Save it as .docx or plain text and add that.",
    "epub": "Convert it to PDF or HTML and add that.",
}


def extension_of(path: Path) -> str:
    """The lower-case extension without its dot ('' for none)."""
    return path.suffix[1:].lower()


def format_for_path(path: Path) -> str | None:
    """The document format parse_document uses for ``path``; 'sniff' when only its content can tell;
    None for file types that are never documents.
    """
    extension = extension_of(path)
    if extension in BINARY_EXTENSIONS:
        return None
    if extension in _DOCUMENT_EXTENSIONS:
        return _DOCUMENT_EXTENSIONS[extension]
    if extension in CODE_EXTENSIONS or path.name.lower() in CODE_FILE_NAMES:
        return "code"
    if extension in PLAIN_TEXT_EXTENSIONS:
        return "text"
    return "sniff"
