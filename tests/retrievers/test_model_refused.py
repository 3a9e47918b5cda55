"""``lemmata evaluate --model FOLDER`` on folders that are not loadable models: one clear error, no traceback.

The folders are the shapes a hostile or broken upload takes: junk weights in a model2vec-looking folder, a
sentence-transformers ``modules.json`` without weights, and one whose module list names a class outside the
library (loading it would import ``evil_module.py`` from the folder, which writes a marker if it ever runs).
"""

from __future__ import annotations

import json

import pytest

from lemmata.cli import main

pytest.importorskip("sentence_transformers")
pytest.importorskip("model2vec")


def folder(root, name: str, files: dict[str, str | bytes]):
    path = root / name
    path.mkdir()
    for file, data in files.items():
        (path / file).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@pytest.mark.parametrize("name, files, kind, reason", [
    ("junk", {"config.json": '{"x": 1}', "model.safetensors": bytes(range(256)) * 8},
     "model2vec", "ValueError: Could not find expected model files"),
    ("no-weights", {"modules.json": json.dumps([{"idx": 0, "name": "0", "path": "",
                                                 "type": "sentence_transformers.models.Transformer"}]),
                    "config.json": '{"model_type": "bert"}'},
     "sentence-transformers", "OSError: "),
    ("foreign-code", {"modules.json": json.dumps([{"idx": 0, "name": "0", "path": "",
                                                   "type": "evil_module.Evil"}]),
                      "evil_module.py": "import pathlib\npathlib.Path(__file__).with_name('RAN').write_text('x')\n"
                                        "class Evil:\n    pass\n"},
     "sentence-transformers", "ValueError: The model "),
])
def test_a_refused_model_folder_is_one_error(tmp_path, capsys, monkeypatch, name, files, kind, reason):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = folder(tmp_path, name, files)
    code = main(["evaluate", "--model", str(path), "--track", "mirb", "--no-store", "--out", str(tmp_path / "runs"),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"error: model folder {path} was refused as a {kind} model: {reason}"), err
    assert len(err.splitlines()) == 1
    assert not (path / "RAN").exists()  # the folder's own code never ran
    assert not (tmp_path / "runs").exists()
